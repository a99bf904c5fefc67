"""Ragged id tensors to NumPy rows, and tokenising long Python lists in chunks."""

import numpy as np
import tensorflow as tf


def numpy_rows(ragged):
    """The rows of a 2-D `tf.RaggedTensor` as a list of NumPy int32 arrays.

    >>> [row.tolist() for row in numpy_rows(tf.ragged.constant([[1, 2], []]))]
    [[1, 2], []]
    """
    values = ragged.flat_values.numpy().astype(np.int32)
    return np.split(values, ragged.row_splits.numpy()[1:-1])


def content_rows_in_chunks(content_ids, texts, chunk_size=8192):
    """`content_ids` (1-D string tensor → ragged ids) over a Python list of texts (str or
    UTF-8 bytes), `chunk_size` texts at a time so that huge inputs stream through: NumPy
    int32 rows in input order."""
    rows = []
    for start in range(0, len(texts), chunk_size):
        chunk = tf.constant(list(texts[start : start + chunk_size]), dtype=tf.string)
        rows.extend(numpy_rows(content_ids(chunk)))
    return rows
