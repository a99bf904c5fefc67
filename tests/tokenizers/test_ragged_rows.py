"""Ragged ids → NumPy rows, and chunked tokenising that keeps input order."""

import numpy as np
import tensorflow as tf

from keras_sentemb.tokenizers.ragged_rows import content_rows_in_chunks, numpy_rows


def test_numpy_rows_keeps_empty_rows_and_gives_int32():
    rows = numpy_rows(tf.ragged.constant([[], [7], [1, 2, 3], []], dtype=tf.int64))
    assert [row.tolist() for row in rows] == [[], [7], [1, 2, 3], []]
    assert all(row.dtype == np.int32 for row in rows)


def test_chunks_are_tokenised_separately_and_returned_in_input_order():
    calls = []

    def code_points(chunk):  # ids of a text: its Unicode code points
        calls.append(int(tf.size(chunk)))
        return tf.strings.unicode_decode(chunk, "UTF-8")

    texts = ["a", "bb", "", "ccc", b"dd"]
    rows = content_rows_in_chunks(code_points, texts, chunk_size=2)
    assert calls == [2, 2, 1]
    assert [row.tolist() for row in rows] == [[97], [98, 98], [], [99, 99, 99], [100, 100]]
