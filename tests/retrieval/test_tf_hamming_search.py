"""The in-graph TF Hamming top-k finds what BinaryIndex finds."""

import numpy as np
import pytest
import tensorflow as tf

from keras_sentemb.retrieval import BinaryIndex, codes_to_words, tf_hamming_top_k


def test_tf_top_k_equals_the_numpy_index_including_ties():
    rng = np.random.default_rng(0)
    codes = np.zeros((2000, 16), np.uint8)
    codes[:, :2] = rng.integers(0, 256, (2000, 2))  # few distinct distances: many ties
    queries = codes[rng.integers(0, 2000, 6)] ^ rng.integers(0, 2, (6, 16), dtype=np.uint8)
    distances, rows = tf_hamming_top_k(tf.constant(queries), tf.constant(codes_to_words(codes)), 12)
    index = BinaryIndex(128, backend="numpy")
    index.add(codes)
    want_distances, want_ids = index.search(queries, 12)
    np.testing.assert_array_equal(distances.numpy(), want_distances)
    np.testing.assert_array_equal(rows.numpy(), want_ids)


def test_codes_must_be_whole_64_bit_words():
    with pytest.raises(ValueError, match="multiple of 64"):
        codes_to_words(np.zeros((3, 4), np.uint8))
