"""Argument checks shared by the public functions: integer-like counts accepted the same
way everywhere, and vectors that cannot lie (no NaN or infinity)."""

import numbers

import numpy as np


def truncate_dim_or_none(truncate_dim, width):
    """`truncate_dim` checked as an int in [1, width] (the leading features an embedding keeps,
    Matryoshka-style), or None (keep all)."""
    if truncate_dim is None:
        return None
    if (
        isinstance(truncate_dim, bool)
        or not isinstance(truncate_dim, (int, np.integer))
        or not 1 <= truncate_dim <= width
    ):
        raise ValueError(f"truncate_dim must be an int in [1, {width}] (the embedding's width), got {truncate_dim!r}")
    return int(truncate_dim)


def positive_int(value, name):
    """`value` as an int when it is a positive integer (Python or NumPy), else `ValueError`.

    >>> positive_int(np.int64(5), "top_k")
    5
    """
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < 1:
        raise ValueError(f"{name} must be a positive int, got {value!r}")
    return int(value)


def finite_rows(vectors, name, first_row=0):
    """`vectors` unchanged when every value is finite; else `ValueError` naming the first
    row with a NaN or an infinity (a NaN vector hashes to an all-zero code and ranks as
    NaN: it would silently poison codes, indexes and search results). `first_row` is the
    row number of `vectors[0]` when a caller checks a large array block by block.

    >>> finite_rows(np.array([[1.0, np.nan]]), "embeddings")
    Traceback (most recent call last):
    ...
    ValueError: embeddings row 0 holds NaN or infinity (1 of 1 rows); refusing to hash, index or search it
    """
    vectors = np.asarray(vectors)
    if vectors.size and not np.isfinite(vectors).all():
        bad = ~np.isfinite(vectors.reshape(len(vectors), -1)).all(axis=1) if vectors.ndim > 1 else ~np.isfinite(vectors)
        raise ValueError(
            f"{name} row {first_row + int(np.argmax(bad))} holds NaN or infinity ({int(bad.sum())} of {len(vectors)} rows); "
            "refusing to hash, index or search it"
        )
    return vectors


def code_prefix_bits(bits, full_bits):
    """`bits` checked as the length of a prefix of `full_bits`-bit codes: a multiple of 8 from 8
    to `full_bits` (a nested code is read at the rungs of its ladder; any byte prefix is valid)."""
    if isinstance(bits, bool) or not isinstance(bits, (int, np.integer)) or bits % 8 or not 8 <= bits <= full_bits:
        raise ValueError(f"bits must be a multiple of 8 from 8 to {full_bits} (the code length), got {bits!r}")
    return int(bits)
