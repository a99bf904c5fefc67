"""Neighbour batches: training batches built around mined cosine neighbourhoods.

A batch of B random sentences out of a large corpus holds almost no true neighbours of
one another, so a loss that weights each row's nearest in-batch neighbours (the rank term
of `CodeSimilarityLoss`) mostly learns to order unrelated sentences. A neighbour batch
is A = B / (1 + n) anchor rows, each followed by n rows drawn from its `pool` nearest
neighbours by cosine (mined once, with scikit-learn's brute-force `NearestNeighbors`),
and, when B is not a multiple of 1 + n, random rows to fill it:

    batch = [a_1, …, a_A,  nb(a_1)_1..n, …, nb(a_A)_1..n,  r_1, …]

so every row has real neighbours in its batch — the top-10 / top-100 boundary that a
Hamming search must get right is inside each batch.

Example:
>>> rng = np.random.default_rng(0)
>>> unit = rng.normal(size=(64, 8)); unit /= np.linalg.norm(unit, axis=1, keepdims=True)
>>> anchors, neighbours = mine_neighbours(unit, pool=5, max_anchors=32, seed=0)
>>> anchors.shape, neighbours.shape
((32,), (32, 5))
>>> neighbour_batch_rows(len(unit), anchors, neighbours, batch_size=16, steps=2,
...                      neighbours_per_anchor=3, seed=0).shape
(2, 16)
"""

import numpy as np
from sklearn.neighbors import NearestNeighbors


def mine_neighbours(unit_vectors, pool=20, max_anchors=20_000, seed=0):
    """`(anchors [A], neighbours [A, pool'])`: A = min(N, max_anchors) anchor rows drawn
    at random (seeded), each with the row numbers of its `pool' = min(pool, N − 1)` most
    cosine-similar other rows, best first.

    Cost: A × N dot products (20,000 anchors × 160k rows ≈ 1.5 min on 2 CPU cores).
    """

    unit_vectors = np.asarray(unit_vectors, np.float32)
    if unit_vectors.ndim != 2 or len(unit_vectors) < 2:
        raise ValueError(f"need [N ≥ 2, d] vectors to mine neighbours, got shape {unit_vectors.shape}")
    if pool < 1 or max_anchors < 1:
        raise ValueError(f"pool and max_anchors must be ≥ 1, got {pool!r} and {max_anchors!r}")
    rows = len(unit_vectors)
    pool = min(pool, rows - 1)
    rng = np.random.default_rng(seed)
    anchors = np.sort(rng.choice(rows, min(rows, max_anchors), replace=False))
    search = NearestNeighbors(n_neighbors=pool + 1, algorithm="brute", metric="cosine")
    found = search.fit(unit_vectors).kneighbors(unit_vectors[anchors], return_distance=False)
    # Drop the anchor itself (a duplicate sentence may come first, so look for it by row).
    is_self = found == anchors[:, None]
    is_self[~is_self.any(axis=1), -1] = True
    return anchors, found[~is_self].reshape(len(anchors), pool)


def neighbour_batch_rows(num_rows, anchors, neighbours, batch_size, steps, neighbours_per_anchor=3, seed=0):
    """Row numbers [steps, batch_size] of `steps` neighbour batches (module docstring).

    Each batch takes batch_size // (1 + n) anchors at random (without repetition within a
    batch), n = `neighbours_per_anchor` distinct neighbours of each from its mined pool,
    and fills the rest with random rows of the corpus (`num_rows` rows).
    """
    anchors = np.asarray(anchors)
    neighbours = np.asarray(neighbours)
    if neighbours.ndim != 2 or len(neighbours) != len(anchors):
        raise ValueError(f"neighbours must be [len(anchors)={len(anchors)}, pool], got {neighbours.shape}")
    if not 1 <= neighbours_per_anchor <= neighbours.shape[1]:
        raise ValueError(
            f"neighbours_per_anchor must be in [1, pool={neighbours.shape[1]}], got {neighbours_per_anchor!r}"
        )
    per_batch = min(batch_size // (1 + neighbours_per_anchor), len(anchors))
    if per_batch < 1:
        raise ValueError(f"batch_size {batch_size} cannot hold an anchor and {neighbours_per_anchor} neighbours")
    rng = np.random.default_rng(seed)
    batches = np.empty((steps, batch_size), np.int64)
    for step in range(steps):
        chosen = rng.choice(len(anchors), per_batch, replace=False)
        picks = rng.random((per_batch, neighbours.shape[1])).argsort(axis=1)[:, :neighbours_per_anchor]
        grouped = np.concatenate([anchors[chosen], np.take_along_axis(neighbours[chosen], picks, 1).ravel()])
        fill = rng.choice(num_rows, batch_size - len(grouped), replace=False)
        batches[step] = np.concatenate([grouped, fill])
    return batches
