"""BinaryIndex: exact Hamming top-k over packed binary codes (FAISS or NumPy)."""

from __future__ import annotations

import io
import os

import numpy as np

from keras_sentemb.retrieval.binary_codes import code_words, validate_codes
from keras_sentemb.utils.argument_checks import finite_rows, positive_int
from keras_sentemb.utils.atomic_files import atomic_open
from keras_sentemb.utils.unit_vectors import unit_rows

BACKENDS = ("auto", "faiss", "numpy")
_CHUNK_ROWS = 1 << 16


def faiss_available():
    """True when `import faiss` works (the faiss-cpu wheel is installed)."""
    try:
        import faiss  # noqa: F401
    except ImportError:
        return False
    return True


class BinaryIndex:
    """Exact k-nearest-neighbour search by Hamming distance d(a, b) = popcount(a XOR b).

    Codes are packed `uint8` [N, bits/8] (see `SemanticHashing.binarize(packed=True)`);
    the index keeps exactly one packed copy (1M codes of 256 bits = 32 MB) and never an
    unpacked one. With the "faiss" backend the codes live in a FAISS `IndexBinaryFlat`;
    with "numpy" the scan is XOR + `np.bitwise_count` on 64-bit words, in chunks of 65,536
    codes. "auto" picks FAISS when faiss-cpu is installed. Both backends return the same
    neighbours: nearest first, ties broken by insertion order (= by id with the default
    ids 0, 1, 2, …).

    Args:
        bits: the code length (a multiple of 8).
        backend: "auto", "faiss" or "numpy".

    Example:
    >>> index = BinaryIndex(64, backend="numpy")
    >>> index.add(np.array([[0] * 8, [255] * 8, [1] + [0] * 7], dtype=np.uint8))
    >>> index.search(np.zeros((1, 8), np.uint8), k=2)
    (array([[0, 1]], dtype=int32), array([[0, 2]]))
    """

    def __init__(self, bits: int, backend: str = "auto"):
        if not isinstance(bits, (int, np.integer)) or bits <= 0 or bits % 8:
            raise ValueError(f"bits must be a positive multiple of 8, got {bits!r}")
        if backend not in BACKENDS:
            raise ValueError(f"backend must be one of {BACKENDS}, got {backend!r}")
        if backend == "faiss" and not faiss_available():
            raise ImportError("backend='faiss' needs the faiss-cpu package (pip install faiss-cpu)")
        if backend == "auto":
            backend = "faiss" if faiss_available() else "numpy"
        self.bits = int(bits)
        self.nbytes = self.bits // 8
        self.backend = backend
        self._count = 0
        self._ids = None  # None: the ids are the positions 0, 1, 2, … (stored only if custom)
        self._blocks = []  # numpy backend: the added code blocks, scanned in place (no merging)
        self._faiss_index = None
        if backend == "faiss":
            import faiss  # optional extra: faiss-cpu (NumPy backend otherwise)

            self._faiss_index = faiss.IndexBinaryFlat(self.bits)

    def __len__(self):
        return self._count

    @property
    def memory_bytes(self):
        """Bytes held for codes (bits/8 per code) and custom ids (8 per code, if any)."""
        return len(self) * self.nbytes + (0 if self._ids is None else self._ids.nbytes)

    def ids(self):
        """The int64 id of every stored code, in insertion order."""
        return np.arange(len(self), dtype=np.int64) if self._ids is None else self._ids

    def _to_ids(self, positions):
        return positions if self._ids is None else self._ids[positions]

    def add(self, codes: np.ndarray, ids: np.ndarray | None = None) -> None:
        """Appends codes [n, bits/8] with int64 `ids` (default: the next positions)."""
        codes = validate_codes(codes, nbytes=self.nbytes)
        if ids is not None:
            ids = np.asarray(ids)
            if ids.shape != (len(codes),) or not np.issubdtype(ids.dtype, np.integer):
                raise ValueError(f"ids must be {len(codes)} integers, got shape {ids.shape} dtype {ids.dtype}")
            ids = ids.astype(np.int64)
            if self._ids is None and np.array_equal(ids, np.arange(len(self), len(self) + len(ids))):
                ids = None  # the default ids: nothing to store
        if ids is not None or self._ids is not None:
            new = np.arange(len(self), len(self) + len(codes), dtype=np.int64) if ids is None else ids
            self._ids = np.concatenate([self.ids(), new])
        if self._faiss_index is not None:
            self._faiss_index.add(codes)
        elif len(codes):
            self._blocks.append(codes.copy())
        self._count += len(codes)

    def codes(self):
        """The stored codes, packed uint8 [N, bits/8], in insertion order (a new array
        unless the NumPy backend holds a single block)."""
        if self._faiss_index is not None:
            import faiss  # optional extra: faiss-cpu (NumPy backend otherwise)

            return faiss.vector_to_array(self._faiss_index.xb).reshape(-1, self.nbytes)
        if len(self._blocks) == 1:
            return self._blocks[0]
        return np.concatenate(self._blocks) if self._blocks else np.zeros((0, self.nbytes), np.uint8)

    def _check_query(self, query_codes, k):
        query_codes = validate_codes(
            np.atleast_2d(query_codes) if isinstance(query_codes, np.ndarray) else query_codes,
            "query_codes",
            nbytes=self.nbytes,
        )
        k = positive_int(k, "k")
        if len(self) == 0:
            raise ValueError("the index is empty: add codes before searching")
        if k > len(self):
            raise ValueError(f"k={k} is larger than the index ({len(self)} codes)")
        return query_codes

    def search(self, query_codes: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
        """The k nearest codes of each query.

        Returns `(distances, ids)`: int32 and int64 arrays [Q, k], nearest first.

        Raises:
            TypeError / ValueError: codes of the wrong dtype or width, k ≤ 0, k larger
                than the index, an empty index.
        """
        distances, positions = self._top_positions(self._check_query(query_codes, k), int(k))
        return distances, self._to_ids(positions)

    def _top_positions(self, query_codes, k):
        """(int32 distances, int64 positions) [Q, k] of the nearest codes, by either backend."""
        if self._faiss_index is not None:
            distances, positions = self._faiss_index.search(query_codes, k)
            return distances.astype(np.int32, copy=False), positions
        return _numpy_top_k(query_codes, self._blocks, k)

    def search_and_rerank(
        self, query_codes: np.ndarray, query_embeddings: np.ndarray, embeddings, k: int, factor=10
    ) -> tuple[np.ndarray, np.ndarray]:
        """Hamming top-(k·factor) candidates re-ranked by float cosine; the best k.

        `embeddings` [N, d] holds the float vectors in insertion order (a `np.memmap`
        works; only candidate rows are read). Returns `(scores, ids)`: float32 cosine
        similarities and int64 ids [Q, k], best first.
        """
        query_codes = self._check_query(query_codes, k)
        factor = positive_int(factor, "factor")
        query_embeddings = finite_rows(np.atleast_2d(np.asarray(query_embeddings, np.float32)), "query_embeddings")
        if query_embeddings.shape[0] != query_codes.shape[0]:
            raise ValueError(f"{query_codes.shape[0]} query codes but {query_embeddings.shape[0]} query embeddings")
        if len(embeddings) != len(self):
            raise ValueError(f"embeddings has {len(embeddings)} rows, the index {len(self)} codes")
        _, positions = self._top_positions(query_codes, min(len(self), int(k) * int(factor)))
        positions = np.sort(positions, axis=1)  # ascending rows: sequential reads of a memmap
        candidates = np.asarray(embeddings[positions.ravel()], np.float32)
        broken = ~np.isfinite(candidates).all(axis=1)
        if broken.any():  # a stored vector that is NaN/inf would rank as NaN
            row = int(positions.ravel()[np.argmax(broken)])
            raise ValueError(f"embeddings row {row} (id {self._to_ids(np.array([row]))[0]}) is not finite (NaN or inf)")
        rows = unit_rows(candidates).reshape(positions.shape + (-1,))
        scores = np.einsum("qd,qcd->qc", unit_rows(query_embeddings), rows)
        order = np.lexsort((positions, -scores), axis=1)[:, : int(k)]
        return (
            np.take_along_axis(scores, order, axis=1).astype(np.float32),
            self._to_ids(np.take_along_axis(positions, order, axis=1)),
        )

    # ------------------------------------------------------------------ persistence
    def save(self, path: str | os.PathLike) -> None:
        """Writes codes, ids and bits to one `.npz` file, atomically."""
        buffer = io.BytesIO()
        np.savez(buffer, bits=np.int64(self.bits), codes=self.codes(), ids=self.ids())
        with atomic_open(path, "wb") as f:
            f.write(buffer.getvalue())

    @classmethod
    def load(cls, path: str | os.PathLike, backend: str = "auto") -> BinaryIndex:
        """An index saved by `save`, on the chosen backend."""
        if not os.path.exists(path):
            raise FileNotFoundError(f"{path} does not exist")
        try:
            with np.load(path, allow_pickle=False) as data:
                bits, codes, ids = int(data["bits"]), data["codes"], data["ids"]
        except (KeyError, ValueError, OSError) as error:
            raise ValueError(f"{path} is not a BinaryIndex file ({error})") from error
        index = cls(bits, backend=backend)
        index.add(codes, ids)
        return index


def _chunks(blocks):
    """(first position, rows) for every chunk of at most _CHUNK_ROWS rows of the blocks."""
    offset = 0
    for block in blocks:
        for start in range(0, len(block), _CHUNK_ROWS):
            yield offset + start, block[start : start + _CHUNK_ROWS]
        offset += len(block)


def _numpy_top_k(query_codes, blocks, k):
    """Exact top-k by (distance, position) with XOR + popcount, scanning the code blocks in
    chunks of _CHUNK_ROWS rows (memory O(queries × chunk))."""
    queries = code_words(query_codes)
    best_keys = np.full((len(queries), 0), 0, np.int64)
    for start, chunk in _chunks(blocks):
        chunk = code_words(chunk)
        distances = np.empty((len(queries), len(chunk)), np.int64)
        for q, query in enumerate(queries):
            distances[q] = np.bitwise_count(chunk ^ query).sum(axis=1, dtype=np.int64)
        # One sortable key per candidate: distance in the high bits, position in the low.
        keys = (distances << 40) | np.arange(start, start + len(chunk), dtype=np.int64)
        keys = np.concatenate([best_keys, keys], axis=1)
        if keys.shape[1] > k:
            keys = np.partition(keys, k - 1, axis=1)[:, :k]
        best_keys = keys
    best_keys = np.sort(best_keys, axis=1)
    return (best_keys >> 40).astype(np.int32), best_keys & ((1 << 40) - 1)
