"""In-graph Hamming top-k in TensorFlow, so a SavedModel can search its own code table."""

import numpy as np
import tensorflow as tf


def codes_to_words(codes):
    """Packed uint8 codes [N, bits/8] → the uint64 words [N, bits/64] the search scans.

    A NumPy view (no copy); bits must be a multiple of 64.
    """
    codes = np.ascontiguousarray(codes, dtype=np.uint8)
    if codes.ndim != 2 or codes.shape[1] % 8:
        raise ValueError(f"in-graph search needs codes [N, bits/8] with bits a multiple of 64, got shape {codes.shape}")
    return codes.view(np.uint64)


def tf_hamming_top_k(query_codes, table_words, k):
    """The k nearest rows of `table_words` for each query, by Hamming distance.

    d(q, t) = Σ_w popcount(q_w XOR t_w) over the 64-bit words w. One query at a time is
    scanned against the whole table (memory O(N), not O(Q·N)); `tf.math.top_k` on −d
    keeps the lower row first among equal distances, as `BinaryIndex` does.

    Args:
        query_codes: uint8 tensor [Q, bits/8] (packed, `np.packbits` order).
        table_words: uint64 tensor [N, bits/64] (`codes_to_words(codes)`).
        k: int, 1 ≤ k ≤ N.

    Returns:
        `(distances, rows)`: int32 [Q, k] each, nearest first.
    """
    query_codes = tf.convert_to_tensor(query_codes, tf.uint8)
    words_per_code = tf.shape(table_words)[1]
    query_words = tf.bitcast(tf.reshape(query_codes, [tf.shape(query_codes)[0], words_per_code, 8]), tf.uint64)

    def nearest(query):
        xor = tf.bitwise.bitwise_xor(table_words, query[None, :])
        distance = tf.reduce_sum(tf.cast(tf.raw_ops.PopulationCount(x=xor), tf.int32), axis=1)
        negated, rows = tf.math.top_k(-distance, k=k)
        return -negated, rows

    return tf.map_fn(nearest, query_words, fn_output_signature=(tf.int32, tf.int32), parallel_iterations=1)
