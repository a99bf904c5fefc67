"""Binary codes: packing, Hamming distance and the sign-threshold baseline.

A code of `bits` bits is stored packed, 8 bits a byte, most significant bit first
(`np.packbits` order, the layout FAISS binary indexes use): an array of `uint8` with
shape [N, bits / 8]. 1M codes of 256 bits take 32 MB.

Hamming distance: d(a, b) = popcount(a XOR b), the number of differing bits.
Hamming similarity on [−1, 1]: 1 − 2·d(a, b) / bits, which equals the cosine of the
±1 vectors 2a − 1 and 2b − 1.

Example:
>>> codes = pack_bits(np.array([[1, 0, 1, 1, 0, 0, 0, 0], [0, 0, 1, 1, 0, 0, 0, 1]]))
>>> codes.tolist(), hamming_distances(codes[:1], codes).tolist()
([[176], [49]], [[0, 2]])
"""

import numpy as np

from keras_sentemb.utils.argument_checks import code_prefix_bits

MIN_BITS = 8


def validate_codes(codes, name="codes", nbytes=None):
    """`codes` as a C-contiguous uint8 array [N, nbytes]; a clear error for anything else.

    No copy is made when the input already is a contiguous uint8 array.
    """
    if not isinstance(codes, np.ndarray):
        raise TypeError(f"{name} must be a numpy uint8 array, got {type(codes).__name__}")
    if codes.dtype != np.uint8:
        raise TypeError(f"{name} must have dtype uint8 (packed bits, see pack_bits), got {codes.dtype}")
    if codes.ndim != 2:
        raise ValueError(f"{name} must be 2-D [N, bits/8], got shape {codes.shape}")
    if nbytes is not None and codes.shape[1] != nbytes:
        raise ValueError(
            f"{name} are {codes.shape[1] * 8}-bit codes ({codes.shape[1]} bytes), "
            f"expected {nbytes * 8}-bit codes ({nbytes} bytes)"
        )
    return np.ascontiguousarray(codes)


def code_prefix(codes, bits):
    """The first `bits` bits of packed codes [N, B/8], as contiguous packed codes [N, bits/8]
    (packing is most significant bit first, so a bit prefix is a byte prefix).

    >>> code_prefix(np.array([[255, 1, 2, 3]], np.uint8), 16).tolist()
    [[255, 1]]
    """
    codes = validate_codes(codes)
    bits = code_prefix_bits(bits, codes.shape[1] * 8)
    return codes if bits == codes.shape[1] * 8 else np.ascontiguousarray(codes[:, : bits // 8])


def code_words(codes):
    """A view (no copy) of packed codes [N, bits/8] as uint64 words [N, bits/64] when bits
    is a multiple of 64, else as the bytes themselves: the unit XOR + popcount scans."""
    return codes.view(np.uint64) if codes.shape[1] % 8 == 0 else codes


def pack_bits(bits):
    """0/1 (or boolean) array [N, bits] → packed uint8 [N, bits/8]; bits must be a multiple of 8."""
    bits = np.asarray(bits)
    if bits.ndim != 2:
        raise ValueError(f"bits must be 2-D [N, bits], got shape {bits.shape}")
    if bits.shape[1] % 8:
        raise ValueError(f"the number of bits must be a multiple of 8, got {bits.shape[1]}")
    if bits.size and not np.isin(bits, (0, 1)).all():
        raise ValueError("bits must hold only 0 and 1 (or booleans)")
    return np.packbits(bits.astype(bool), axis=1)


def unpack_bits(codes):
    """Packed uint8 [N, bits/8] → 0/1 uint8 [N, bits] (the inverse of `pack_bits`)."""
    return np.unpackbits(validate_codes(codes), axis=1)


def hamming_distances(query_codes, codes):
    """All pairwise Hamming distances, int32 [Q, N] (for small inputs; the index scans big ones).

    Popcount of XOR on 64-bit words when the width allows, on bytes otherwise.
    """
    query_codes = validate_codes(query_codes, "query_codes")
    codes = validate_codes(codes, nbytes=query_codes.shape[1])
    q, c = code_words(query_codes), code_words(codes)
    return np.bitwise_count(q[:, None, :] ^ c[None, :, :]).sum(axis=-1, dtype=np.int32)


def hamming_similarity(query_codes, codes):
    """1 − 2·d/bits in [−1, 1] for every pair, float32 [Q, N]."""
    bits = validate_codes(query_codes, "query_codes").shape[1] * 8
    return 1.0 - 2.0 * hamming_distances(query_codes, codes).astype(np.float32) / bits


def sign_threshold_codes(embeddings, bits=None, seed=0):
    """The training-free baseline: packed codes of sign(x) (or of sign(R x) for other lengths).

    With `bits` equal to the embedding width (or None) this is exactly
    sentence-transformers' `quantize_embeddings(x, "ubinary")`: bit = 1 where x > 0.
    For any other length the embedding is first projected by a seeded Gaussian random
    matrix R [d, bits] (random-hyperplane LSH, Charikar 2002), whose Hamming distance
    estimates the angle: E[d/bits] = θ(x, y)/π.
    """
    embeddings = np.asarray(embeddings, dtype=np.float32)
    if embeddings.ndim != 2:
        raise ValueError(f"embeddings must be 2-D [N, d], got shape {embeddings.shape}")
    dim = embeddings.shape[1]
    bits = dim if bits is None else bits
    if not isinstance(bits, (int, np.integer)) or bits < MIN_BITS or bits % 8:
        raise ValueError(f"bits must be a positive multiple of 8, got {bits!r}")
    if bits != dim:
        projection = np.random.default_rng(seed).standard_normal((dim, bits)).astype(np.float32)
        embeddings = embeddings @ projection
    return np.packbits(embeddings > 0, axis=1)
