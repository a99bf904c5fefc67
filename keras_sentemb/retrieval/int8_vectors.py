"""Int8Vectors: stored sentence vectors at one byte a feature, for rescoring binary-search hits."""

from __future__ import annotations

import numpy as np

from keras_sentemb.utils.argument_checks import finite_rows


class Int8Vectors:
    """Vectors [N, d] kept as int8 with a calibrated range per feature (sentence-transformers'
    `quantize_embeddings(..., "int8")` scheme):

        step_j = (max_j − min_j) / 255,   q_ij = round((x_ij − min_j) / step_j) − 128 ∈ [−128, 127],
        x_ij ≈ min_j + (q_ij + 128) · step_j

    with min_j / max_j the range of feature j over `calibration` vectors (default: the vectors
    themselves); values outside it are clipped. Rows read back (`vectors[rows]`) are float32,
    so `BinaryIndex.search_and_rerank` and `cascade_search` rescore with them as with float
    vectors, at a quarter of the memory: d bytes a vector (+ 8·d for the ranges).

    Example:
    >>> vectors = Int8Vectors.quantize(np.array([[0.0, 1.0], [1.0, -1.0], [0.5, 0.0]], np.float32))
    >>> vectors.values.tolist(), vectors[[2]].astype(float).round(3).tolist(), vectors.nbytes
    ([[-128, 127], [127, -128], [-1, -1]], [[0.498, -0.004]], 22)
    """

    def __init__(self, values: np.ndarray, minimum: np.ndarray, step: np.ndarray):
        values, minimum, step = np.asarray(values), np.asarray(minimum, np.float32), np.asarray(step, np.float32)
        if values.dtype != np.int8 or values.ndim != 2:
            raise TypeError(f"values must be int8 [N, d], got {values.dtype} {values.shape}")
        if minimum.shape != (values.shape[1],) or step.shape != (values.shape[1],):
            raise ValueError(f"minimum and step must be [{values.shape[1]}], got {minimum.shape} and {step.shape}")
        self.values, self.minimum, self.step = values, minimum, step

    @classmethod
    def quantize(cls, embeddings, calibration=None) -> Int8Vectors:
        """The int8 form of float `embeddings` [N, d], with the per-feature ranges of
        `calibration` [M, d] (default: `embeddings`)."""
        embeddings = finite_rows(np.asarray(embeddings, np.float32), "embeddings")
        if embeddings.ndim != 2:
            raise ValueError(f"embeddings must be [N, d], got shape {embeddings.shape}")
        reference = (
            embeddings if calibration is None else finite_rows(np.asarray(calibration, np.float32), "calibration")
        )
        if reference.ndim != 2 or reference.shape[1] != embeddings.shape[1] or not len(reference):
            raise ValueError(f"calibration must be [M ≥ 1, {embeddings.shape[1]}], got shape {reference.shape}")
        minimum = reference.min(axis=0)
        step = np.maximum(reference.max(axis=0) - minimum, 1e-12) / 255.0
        values = np.clip(np.rint((embeddings - minimum) / step) - 128, -128, 127).astype(np.int8)
        return cls(values, minimum, step)

    def __len__(self):
        return len(self.values)

    def __getitem__(self, rows) -> np.ndarray:
        """Float32 rows, dequantised."""
        return (self.values[rows].astype(np.float32) + 128.0) * self.step + self.minimum

    @property
    def nbytes(self) -> int:
        """Bytes held: one a feature, plus the two float32 ranges."""
        return self.values.nbytes + self.minimum.nbytes + self.step.nbytes
