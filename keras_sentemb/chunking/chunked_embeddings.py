"""ChunkedEmbeddings: chunk vectors with the document and character span of each."""

import dataclasses

import numpy as np

from keras_sentemb.utils.unit_vectors import unit_rows

CHUNK_POOLINGS = ("mean", "max", "first")


@dataclasses.dataclass
class ChunkedEmbeddings:
    """What `encode(texts, chunking=Chunking(pooling=None))` returns: one row per chunk, the
    chunks of document 0 first, each document's in text order (every document has ≥ 1 chunk).

    Attributes:
        vectors: float32 [C, d] chunk vectors (unit length when `encode` normalises).
        document: int64 [C], the index of each chunk's text in the input.
        start, end: int64 [C], each chunk's character span in its text (`text[start:end]`;
            Python string indices).
        piece_start, piece_end: int64 [C], each chunk's span in its text's word pieces (prompt
            excluded): what the SavedModel's `chunks` signature returns as `start` / `end`.

    Example:
    >>> chunks = ChunkedEmbeddings(np.array([[1.0, 0], [0, 1.0], [1.0, 0]], np.float32),
    ...                            np.array([0, 0, 1]), np.array([0, 5, 0]), np.array([5, 9, 3]))
    >>> chunks.pooled("mean").astype(float).round(4).tolist()
    [[0.7071, 0.7071], [1.0, 0.0]]
    >>> chunks.texts(["Hello you", "Hey"])
    ['Hello', ' you', 'Hey']
    """

    vectors: np.ndarray
    document: np.ndarray
    start: np.ndarray
    end: np.ndarray
    piece_start: np.ndarray | None = None
    piece_end: np.ndarray | None = None

    def __len__(self):
        return len(self.document)

    @property
    def num_documents(self):
        return int(self.document[-1]) + 1 if len(self.document) else 0

    def texts(self, documents):
        """The text of each chunk, cut from `documents` (the texts given to `encode`)."""
        return [documents[d][s:e] for d, s, e in zip(self.document, self.start, self.end)]

    def pooled(self, pooling="mean", normalize=True):
        """One vector a document [num_documents, d]: the mean, per-feature max or first of its chunk
        vectors, L2-normalised with `normalize`."""
        if pooling not in CHUNK_POOLINGS:
            raise ValueError(f"pooling must be one of {CHUNK_POOLINGS}, got {pooling!r}")
        if not len(self.document):
            return np.zeros((0, self.vectors.shape[1]), np.float32)
        firsts = np.flatnonzero(np.r_[True, self.document[1:] != self.document[:-1]])
        if pooling == "first":
            pooled = self.vectors[firsts].copy()
        elif pooling == "max":
            pooled = np.maximum.reduceat(self.vectors, firsts, axis=0)
        else:
            counts = np.diff(np.r_[firsts, len(self.document)])
            pooled = np.add.reduceat(self.vectors, firsts, axis=0) / counts[:, None]
        return unit_rows(pooled) if normalize else pooled.astype(np.float32)
