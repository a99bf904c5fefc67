"""BinaryIndex: Hamming top-k over packed binary codes — exact (FAISS or NumPy) or sub-linear
(FAISS's IVF and HNSW binary indexes) — on whole codes or on the prefixes of nested codes, and
the coarse-to-fine cascade over them."""

from __future__ import annotations

import json
import os

import numpy as np

from keras_sentemb.retrieval import approximate_binary_search as approximate
from keras_sentemb.retrieval.binary_codes import code_prefix, code_prefix_bits, code_words, validate_codes
from keras_sentemb.utils.argument_checks import finite_rows, positive_int
from keras_sentemb.utils.atomic_files import atomic_open
from keras_sentemb.utils.checked_files import npz_array, open_npz
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


def check_kind(kind: str, parameters: dict | None = None, backend: str = "auto") -> dict:
    """The full parameters of an index `kind` (`approximate_binary_search.kind_parameters`),
    checked to be buildable on `backend`.

    Raises:
        ValueError / TypeError: an unknown kind, a parameter it does not take, a bad value.
        ImportError: "ivf" / "hnsw" without faiss-cpu or with backend="numpy".
    """
    parameters = approximate.kind_parameters(kind, parameters)
    if kind != "flat" and (backend == "numpy" or not faiss_available()):
        raise ImportError(
            f"kind={kind!r} is a FAISS index: it needs the faiss-cpu package "
            '(pip install "./keras-sentemb[faiss]") and backend "auto" or "faiss"'
        )
    return parameters


class BinaryIndex:
    """k-nearest-neighbour search by Hamming distance d(a, b) = popcount(a XOR b).

    Codes are packed `uint8` [N, bits/8] (see `SemanticHashing.binarize(packed=True)`);
    the index keeps exactly one packed copy (1M codes of 256 bits = 32 MB) and never an
    unpacked one. With the "faiss" backend the codes live in a FAISS `IndexBinaryFlat`;
    with "numpy" the scan is XOR + `np.bitwise_count` on 64-bit words, in chunks of 65,536
    codes. "auto" picks FAISS when faiss-cpu is installed. Both backends return the same
    neighbours: nearest first, ties broken by insertion order (= by id with the default
    ids 0, 1, 2, …).

    `kind="flat"` (the default) is that exact scan. `kind="ivf"` and `kind="hnsw"` are FAISS's
    sub-linear binary indexes (`approximate_binary_search`): a query compares a few of the
    codes, so it is much faster on millions of codes and may miss some exact neighbours (at
    10 million codes, recall@10 of the exact Hamming top 10 against latency is measured by
    `benchmarks/binary_index_scale.py`). They need faiss-cpu; an IVF trains its lists on the
    first codes added. An approximate search that finds fewer than k codes (a tiny `nprobe`)
    pads its rows with id -1 at distance bits + 1. Prefix searches (`bits=`) and the cascade's
    shortlist are exact scans of the prefixes whatever the kind.

    Args:
        bits: the code length (a multiple of 8).
        backend: "auto", "faiss" or "numpy".
        kind: "flat", "ivf" or "hnsw".
        **parameters: the kind's parameters — ivf: `nlist` (default 4·√N at the first add),
            `nprobe` (32); hnsw: `hnsw_m` (32), `ef_construction` (40), `ef_search` (64).

    Example:
    >>> index = BinaryIndex(64, backend="numpy")
    >>> index.add(np.array([[0] * 8, [255] * 8, [1] + [0] * 7], dtype=np.uint8))
    >>> index.search(np.zeros((1, 8), np.uint8), k=2)
    (array([[0, 1]], dtype=int32), array([[0, 2]]))

    A graph index over 2,000 random 64-bit codes finds a stored code itself:
    >>> codes = np.random.default_rng(0).integers(0, 256, (2000, 8), dtype=np.uint8)
    >>> graph = BinaryIndex(64, kind="hnsw", ef_search=32)
    >>> graph.add(codes)
    >>> graph.search(codes[:1], k=1)
    (array([[0]], dtype=int32), array([[0]]))
    """

    def __init__(self, bits: int, backend: str = "auto", kind: str = "flat", **parameters):
        if not isinstance(bits, (int, np.integer)) or bits <= 0 or bits % 8:
            raise ValueError(f"bits must be a positive multiple of 8, got {bits!r}")
        if backend not in BACKENDS:
            raise ValueError(f"backend must be one of {BACKENDS}, got {backend!r}")
        if backend == "faiss" and not faiss_available():
            raise ImportError("backend='faiss' needs the faiss-cpu package (pip install faiss-cpu)")
        self.parameters = check_kind(kind, parameters, backend)
        if backend == "auto":
            backend = "faiss" if faiss_available() else "numpy"
        self.bits = int(bits)
        self.nbytes = self.bits // 8
        self.backend = backend
        self.kind = kind
        self._count = 0
        self._ids = None  # None: the ids are the positions 0, 1, 2, … (stored only if custom)
        self._blocks = []  # numpy backend: the added code blocks, scanned in place (no merging)
        self._faiss_index = None
        self._prefix_indexes = {}  # bits → BinaryIndex of the codes' first bits (nested codes), built on demand
        if backend == "faiss" and kind != "ivf":  # an IVF is made at the first add: it trains on those codes
            self._faiss_index = approximate.new_faiss_index(kind, self.bits, self.parameters, None)

    def __len__(self):
        return self._count

    @property
    def memory_bytes(self):
        """Bytes held for codes (bits/8 per code), the structure of an approximate kind (HNSW's
        links, the IVF's ids, direct map and centroids), the prefix copies that `search(bits=...)`
        built (bits/8 per code each) and custom ids (8 per code, if any)."""
        prefixes = sum(index.memory_bytes for index in self._prefix_indexes.values())
        structure = (
            0 if self._faiss_index is None else approximate.structure_bytes(self._faiss_index, self.kind, len(self))
        )
        return len(self) * self.nbytes + structure + prefixes + (0 if self._ids is None else self._ids.nbytes)

    def set_search_parameters(self, **parameters) -> None:
        """Changes how an approximate index searches: `nprobe` (ivf) or `ef_search` (hnsw).

        Raises:
            ValueError: a parameter that is not a search parameter of this kind, or ≤ 0.
        """
        allowed = approximate.SEARCH_PARAMETERS[self.kind]
        unknown = sorted(set(parameters) - set(allowed))
        if unknown:
            raise ValueError(
                f"kind={self.kind!r} has no search parameter {unknown[0]!r} (its search parameters: {list(allowed) or 'none'})"
            )
        self.parameters = approximate.kind_parameters(self.kind, {**self.parameters, **parameters})
        if self._faiss_index is not None:
            approximate.set_search_parameters(self._faiss_index, self.kind, self.parameters)

    def ids(self):
        """The int64 id of every stored code, in insertion order."""
        return np.arange(len(self), dtype=np.int64) if self._ids is None else self._ids

    def _to_ids(self, positions):
        """Ids of positions; a missing hit (position -1, approximate kinds) stays -1."""
        if self._ids is None:
            return positions
        return np.where(positions >= 0, self._ids[np.maximum(positions, 0)], -1)

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
        if self.kind == "ivf" and self._faiss_index is None:
            self._faiss_index = approximate.new_faiss_index(self.kind, self.bits, self.parameters, codes)
        if self._faiss_index is not None:
            self._faiss_index.add(codes)
        elif len(codes):
            self._blocks.append(codes.copy())
        self._count += len(codes)
        self._prefix_indexes.clear()  # rebuilt from all the codes at the next prefix search

    def codes(self):
        """The stored codes, packed uint8 [N, bits/8], in insertion order: a copy with the FAISS
        backend, a read-only view of the index's one block with NumPy (its blocks merged first)."""
        view = self._code_view()
        return view.copy() if self._faiss_index is not None else view

    def _code_view(self):
        """The stored codes without a copy, read-only; valid while the index lives and until the
        next `add` (FAISS may move its buffer): for use inside a method only."""
        if not len(self):  # (an IVF has no FAISS index before its first add)
            view = np.zeros((0, self.nbytes), np.uint8)
        elif self._faiss_index is not None:
            view = approximate.stored_codes(self._faiss_index, self.kind, len(self), self.nbytes)
        else:
            if len(self._blocks) > 1:
                self._blocks = [np.concatenate(self._blocks)]
            view = self._blocks[0].view() if self._blocks else np.zeros((0, self.nbytes), np.uint8)
        view.flags.writeable = False
        return view

    def _check_query(self, query_codes, k, bits=None):
        """Query codes [Q, bits/8] checked (whole codes cut to `bits` when it is given), and k."""
        query_codes = np.atleast_2d(query_codes) if isinstance(query_codes, np.ndarray) else query_codes
        if bits is not None:
            bits = code_prefix_bits(bits, self.bits)
            query_codes = validate_codes(query_codes, "query_codes")
            if query_codes.shape[1] == self.nbytes:
                query_codes = code_prefix(query_codes, bits)
        query_codes = validate_codes(query_codes, "query_codes", nbytes=self.nbytes if bits is None else bits // 8)
        k = positive_int(k, "k")
        if len(self) == 0:
            raise ValueError("the index is empty: add codes before searching")
        if k > len(self):
            raise ValueError(f"k={k} is larger than the index ({len(self)} codes)")
        return query_codes

    def search(self, query_codes: np.ndarray, k: int, bits: int | None = None) -> tuple[np.ndarray, np.ndarray]:
        """The k nearest codes of each query.

        `bits` searches by the Hamming distance of the codes' first `bits` bits only (the
        prefix of a nested code, `SemanticHashing.nested_bits`); the queries may be whole codes
        or prefixes. The first prefix search of a length copies the prefixes of all the codes
        (bits/8 bytes a code, in `memory_bytes`), so later ones scan bits/8 bytes a code.

        Returns `(distances, ids)`: int32 and int64 arrays [Q, k], nearest first.

        Raises:
            TypeError / ValueError: codes of the wrong dtype or width, k ≤ 0, k larger
                than the index, an empty index, a `bits` that is no byte prefix of the codes.
        """
        query_codes = self._check_query(query_codes, k, bits)
        if bits is None or int(bits) == self.bits:
            distances, positions = self._top_positions(query_codes, int(k))
        else:
            distances, positions = self._prefix_index(int(bits))._top_positions(query_codes, int(k))
        return distances, self._to_ids(positions)

    def _prefix_index(self, bits):
        """An index (same backend, positions as ids) of the first `bits` bits of every code."""
        if bits not in self._prefix_indexes:
            prefixes = BinaryIndex(bits, backend=self.backend)
            prefixes.add(code_prefix(self._code_view(), bits))
            self._prefix_indexes[bits] = prefixes
        return self._prefix_indexes[bits]

    def cascade_search(
        self,
        query_codes: np.ndarray,
        k: int,
        shortlist_bits: int,
        shortlist: int = 100,
        query_embeddings: np.ndarray | None = None,
        embeddings=None,
    ) -> tuple[np.ndarray, np.ndarray]:
        """Coarse to fine over nested codes, in one call: the `shortlist` nearest codes by their
        first `shortlist_bits` bits, re-ranked by the Hamming distance of the whole codes, and —
        given `query_embeddings` and the stored vectors `embeddings` (float [N, d], a memmap, or
        `Int8Vectors`) — rescored by cosine (`search_and_rerank`'s rescoring).

        Cost per query: a scan of N·shortlist_bits/8 bytes, then `shortlist` whole codes (and
        vectors). Returns `(distances, ids)` int32 / int64 [Q, k] from the codes, or
        `(scores, ids)` float32 / int64 [Q, k] when rescored; best first, ties by position.
        """
        query_codes = self._check_query(query_codes, k)
        shortlist = min(positive_int(shortlist, "shortlist"), len(self))
        if shortlist < int(k):
            raise ValueError(f"shortlist={shortlist} is smaller than k={k}")
        _, positions = self._prefix_index(code_prefix_bits(shortlist_bits, self.bits))._top_positions(
            code_prefix(query_codes, shortlist_bits), shortlist
        )
        positions = np.sort(positions, axis=1)  # ascending rows: sequential reads
        if query_embeddings is not None or embeddings is not None:
            return self._rescore(positions, query_embeddings, embeddings, int(k))
        candidates = code_words(np.ascontiguousarray(self._code_view()[positions.ravel()]))
        queries = code_words(query_codes)
        # The word count is given, not inferred: with no queries there is nothing to infer it from.
        candidates = candidates.reshape(positions.shape + (queries.shape[1],))
        distances = np.bitwise_count(candidates ^ queries[:, None, :]).sum(axis=-1, dtype=np.int32)
        order = np.lexsort((positions, distances), axis=1)[:, : int(k)]
        return np.take_along_axis(distances, order, axis=1), self._to_ids(np.take_along_axis(positions, order, axis=1))

    def _top_positions(self, query_codes, k):
        """(int32 distances, int64 positions) [Q, k] of the nearest codes, by either backend;
        a hit an approximate kind did not find is position -1 at distance bits + 1."""
        if self._faiss_index is not None:
            with approximate.search_threads(len(query_codes)):
                distances, positions = self._faiss_index.search(query_codes, k)
            if self.kind != "flat":
                distances[positions < 0] = self.bits + 1
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
        _, positions = self._top_positions(query_codes, min(len(self), int(k) * int(factor)))
        positions = np.sort(positions, axis=1)  # ascending rows: sequential reads of a memmap
        return self._rescore(positions, query_embeddings, embeddings, int(k))

    def _rescore(self, positions, query_embeddings, embeddings, k):
        """The best k of the candidate `positions` [Q, C] (ascending) by cosine with the queries."""
        if query_embeddings is None or embeddings is None:
            raise ValueError("rescoring needs both query_embeddings and embeddings")
        query_embeddings = finite_rows(np.atleast_2d(np.asarray(query_embeddings, np.float32)), "query_embeddings")
        if query_embeddings.shape[0] != positions.shape[0]:
            raise ValueError(f"{positions.shape[0]} query codes but {query_embeddings.shape[0]} query embeddings")
        if len(embeddings) != len(self):
            raise ValueError(f"embeddings has {len(embeddings)} rows, the index {len(self)} codes")
        found = positions >= 0  # an approximate kind may find fewer than asked (position -1)
        candidates = np.asarray(embeddings[np.where(found, positions, 0).ravel()], np.float32)
        broken = ~np.isfinite(candidates).all(axis=1) & found.ravel()
        if broken.any():  # a stored vector that is NaN/inf would rank as NaN
            row = int(positions.ravel()[np.argmax(broken)])
            raise ValueError(f"embeddings row {row} (id {self._to_ids(np.array([row]))[0]}) is not finite (NaN or inf)")
        rows = unit_rows(candidates).reshape(positions.shape + (candidates.shape[1],))  # (no queries: nothing to infer)
        scores = np.where(found, np.einsum("qd,qcd->qc", unit_rows(query_embeddings), rows), -np.inf)
        order = np.lexsort((positions, -scores), axis=1)[:, :k]
        return (
            np.take_along_axis(scores, order, axis=1).astype(np.float32),
            self._to_ids(np.take_along_axis(positions, order, axis=1)),
        )

    # ------------------------------------------------------------------ persistence
    def save(self, path: str | os.PathLike) -> None:
        """Writes the index to one `.npz` file, atomically (a temporary file renamed into place):
        bits and ids, and the codes (flat) or FAISS's serialisation of the whole index with its
        kind and parameters (ivf, hnsw: loading it rebuilds nothing). An empty index of any kind
        saves and loads as an empty index of that kind."""
        arrays = {"bits": np.int64(self.bits), "ids": self.ids()}
        if self.kind == "flat":
            arrays["codes"] = self.codes()
        else:
            import faiss  # optional extra: faiss-cpu (an approximate kind has it)

            arrays["kind"] = np.array(self.kind)
            arrays["parameters"] = np.array(json.dumps(self.parameters))
            # An IVF trains at its first add: before it there is no FAISS index, and an empty array
            # stands for it (loading gives the same untrained, empty IVF).
            empty = self._faiss_index is None
            arrays["faiss_index"] = np.zeros(0, np.uint8) if empty else faiss.serialize_index_binary(self._faiss_index)
        with atomic_open(path, "wb") as f:
            np.savez(f, **arrays)

    @classmethod
    def load(cls, path: str | os.PathLike, backend: str = "auto") -> BinaryIndex:
        """An index saved by `save`: a flat one on the chosen backend, an approximate one on FAISS.

        Raises:
            FileNotFoundError: no file at `path`.
            ValueError: a file that is not a saved BinaryIndex (or disagrees with itself).
            ImportError: an ivf / hnsw index without faiss-cpu, or with backend="numpy".
        """
        path = os.fspath(path)
        with open_npz(path) as data:  # a FIFO, a device, a truncated or foreign file: one ValueError
            try:
                bits, ids = int(npz_array(data, "bits", path)), npz_array(data, "ids", path)
                if ids.ndim != 1 or ids.dtype.kind not in "iu":
                    raise ValueError(f"ids must be a 1-D integer array, got {ids.dtype} {ids.shape}")
                if "kind" not in data:
                    index = cls(bits, backend=backend)
                    index.add(npz_array(data, "codes", path), ids)
                    return index
                kind, parameters, serialized = (
                    str(npz_array(data, "kind", path)),
                    json.loads(str(npz_array(data, "parameters", path))),
                    npz_array(data, "faiss_index", path),
                )
            except (KeyError, ValueError, TypeError, OSError) as error:
                detail = str(error).removeprefix(f"{path}: ")
                raise ValueError(f"{path}: not a BinaryIndex file ({detail})") from None
        try:
            index = cls(bits, backend=backend, kind=kind, **parameters)
        except (TypeError, ValueError) as error:
            raise ValueError(f"{path}: {error}") from error
        if not serialized.size and not len(ids):
            return index  # saved before its first add (an IVF not trained yet)
        import faiss  # optional extra: faiss-cpu (the constructor checked it)

        try:
            faiss_index = faiss.deserialize_index_binary(serialized)
        except RuntimeError as error:
            raise ValueError(f"{path}: its FAISS index does not load ({error})") from error
        if faiss_index.d != bits or faiss_index.ntotal != len(ids):
            raise ValueError(
                f"{path}: its FAISS index holds {faiss_index.ntotal} codes of {faiss_index.d} bits, "
                f"the file says {len(ids)} of {bits}"
            )
        index._faiss_index = faiss_index
        index._count = len(ids)
        if not np.array_equal(ids, np.arange(len(ids))):
            index._ids = ids.astype(np.int64)
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
