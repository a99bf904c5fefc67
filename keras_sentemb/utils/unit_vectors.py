"""Unit-length rows in NumPy: x / max(‖x‖, ε), so cosine similarity is a dot product."""

import numpy as np

EPSILON = 1e-12


def unit_rows(vectors):
    """A float32 copy of `vectors` [..., d] with every row scaled to length 1 (zero rows stay 0).

    >>> unit_rows(np.array([[3.0, 4.0], [0.0, 0.0]])).tolist()
    [[0.6000000238418579, 0.800000011920929], [0.0, 0.0]]
    """
    vectors = np.asarray(vectors, np.float32)
    return vectors / np.maximum(np.linalg.norm(vectors, axis=-1, keepdims=True), EPSILON)
