"""Similarity of aligned embedding pairs, by registered name: cosine, dot, euclidean,
manhattan, hamming. Larger always means more similar."""

import numpy as np

from keras_sentemb.retrieval.binary_codes import code_words, validate_codes


def _floats(u, v):
    u = np.asarray(u, dtype=np.float64)
    v = np.asarray(v, dtype=np.float64)
    if u.ndim != 2 or u.shape != v.shape:
        raise ValueError(f"u and v must be float arrays of one shape [N, d], got {u.shape} and {v.shape}")
    return u, v


def cosine(u, v):
    """u·v / (‖u‖ ‖v‖) per row (0 for a zero vector)."""
    u, v = _floats(u, v)
    norms = np.linalg.norm(u, axis=1) * np.linalg.norm(v, axis=1)
    return np.sum(u * v, axis=1) / np.maximum(norms, 1e-12)


def dot(u, v):
    """u·v per row."""
    u, v = _floats(u, v)
    return np.sum(u * v, axis=1)


def euclidean(u, v):
    """−‖u − v‖₂ per row."""
    u, v = _floats(u, v)
    return -np.linalg.norm(u - v, axis=1)


def manhattan(u, v):
    """−‖u − v‖₁ per row."""
    u, v = _floats(u, v)
    return -np.abs(u - v).sum(axis=1)


def hamming(u, v):
    """−(number of differing bits) per row of packed uint8 codes [N, bits/8]."""
    u = validate_codes(u, "u")
    v = validate_codes(v, "v", nbytes=u.shape[1])
    if u.shape != v.shape:
        raise ValueError(f"u and v must hold the same number of codes, got {u.shape} and {v.shape}")
    return -np.bitwise_count(code_words(u) ^ code_words(v)).sum(axis=1, dtype=np.int64).astype(np.float64)


SIMILARITIES = {"cosine": cosine, "dot": dot, "euclidean": euclidean, "manhattan": manhattan, "hamming": hamming}


def pair_similarity(name, u, v):
    """The registered similarity `name` of each aligned pair (u_i, v_i).

    >>> pair_similarity("manhattan", [[0.0, 1.0]], [[1.0, 1.0]]).tolist()
    [-1.0]
    """
    if name not in SIMILARITIES:
        raise ValueError(f"unknown similarity {name!r}; registered: {sorted(SIMILARITIES)}")
    return SIMILARITIES[name](u, v)
