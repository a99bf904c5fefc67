"""SparseIndex: top-k documents by dot product of learned sparse vectors (SPLADE), exact or with Seismic.

Documents and queries are CSR rows [texts, vocabulary] (`SparseEncoder.encode_document` / `encode_query`), and a
document d scores

    score(q, d) = Σ_t q_t · d_t

over the vocabulary entries both hold: only documents sharing an entry with the query score above 0, and
`search` pads a query's row with id −1 (score 0) where fewer than `top_k` do, as `LexicalIndex` does. Two engines:

- "exact": the scores of every document, `scipy.sparse` (queries × documentsᵀ, `QUERY_BLOCK` queries at a time),
  the reference;
- "seismic": Seismic's approximate inverted index (Bruch et al., SIGIR 2024; `pyseismic-lsr`): each entry's
  posting list cut to `n_postings` documents and clustered into blocks with summaries; a query reads its
  `query_cut` largest entries and skips a block whose summary scores below `heap_factor` × its k-th best.

A saved index is a folder: `vectors.npz` (the documents' CSR rows: an exact search needs nothing else, a Seismic
one re-reads its candidates from them), `seismic.index.seismic` (kind "seismic") and `sparse.json` (format, kind,
parameters, sizes, the sha256 of the documents' texts and of every file, checked before anything is read). It is
written atomically; a folder whose files differ from what was written is refused.

Example:
>>> import scipy.sparse
>>> documents = scipy.sparse.csr_matrix(np.array([[0, 2.0, 0, 1.0], [1.0, 0, 0, 0], [0, 1.0, 3.0, 0]], "float32"))
>>> index = SparseIndex(documents)
>>> ids, scores = index.search(scipy.sparse.csr_matrix(np.array([[0, 1.0, 1.0, 0]], "float32")), top_k=3)
>>> ids.tolist(), scores.tolist()
([[2, 0, -1]], [[4.0, 2.0, 0.0]])
"""

import contextlib
import os
import sys

import numpy as np
import scipy.sparse

from keras_sentemb.retrieval.ranked_runs import best_positive
from keras_sentemb.utils.argument_checks import positive_int
from keras_sentemb.utils.atomic_files import atomic_directory
from keras_sentemb.utils.index_meta import check_index_files, read_index_meta, write_index_meta

SPARSE_FORMAT = 1
META_FILE = "sparse.json"
VECTORS_FILE = "vectors.npz"
SEISMIC_STEM = "seismic"  # Seismic writes <stem>.index.seismic
SEISMIC_FILE = SEISMIC_STEM + ".index.seismic"
ENGINES = ("exact", "seismic")
QUERY_BLOCK = 256
INSTALL_HINT = 'pip install "./keras-sentemb[sparse]" (pyseismic-lsr)'
# Seismic's build and search settings, ours by default: at them a query's top 10 over NFCorpus holds ≥ 0.98 of the
# exact search's (benchmarks/sparse_retrieval.py measures it).
SEISMIC_BUILD = {"n_postings": 1000, "centroid_fraction": 0.2, "summary_energy": 0.5, "doc_cut": 30}
SEISMIC_SEARCH = {"query_cut": 20, "heap_factor": 0.9}


def _seismic():
    try:
        import seismic  # optional extra: sparse
    except ImportError as error:
        raise ImportError(f"a Seismic index needs pyseismic-lsr: {INSTALL_HINT}") from error
    return seismic


@contextlib.contextmanager
def _quiet_stdout():
    """Seismic's Rust code prints its build steps to the process' standard output: sent to standard error, so
    that a command's output (JSON lines) stays its own."""
    sys.stdout.flush()
    saved = os.dup(1)
    try:
        os.dup2(2, 1)
        yield
    finally:
        os.dup2(saved, 1)
        os.close(saved)


def checked_vectors(vectors, what):
    """`vectors` as float32 CSR [rows, vocabulary] with finite, non-negative values; ValueError naming `what`."""
    if not scipy.sparse.issparse(vectors):
        raise TypeError(f"{what} must be a scipy.sparse matrix [texts, vocabulary], got {type(vectors).__name__}")
    vectors = scipy.sparse.csr_matrix(vectors, dtype=np.float32)
    vectors.sum_duplicates()
    if not np.isfinite(vectors.data).all() or (vectors.data < 0).any():
        raise ValueError(f"{what} hold negative, NaN or infinite weights: learned sparse weights are ≥ 0")
    return vectors


class SparseIndex:
    """Top-k by dot product over documents' sparse vectors (see the module docstring).

    Args:
        vectors: the documents' CSR rows [documents, vocabulary] (their ids are the row numbers).
        engine: "exact" or "seismic".
        documents_sha256: `texts_sha256` of the documents' texts (kept, and checked by `load`), or None.
        seismic: Seismic's build settings (`SEISMIC_BUILD`'s keys) over ours.
    """

    def __init__(self, vectors, engine="exact", documents_sha256=None, seismic=None, search_settings=None):
        if engine not in ENGINES:
            raise ValueError(f"engine must be one of {ENGINES}, got {engine!r}")
        self.vectors = checked_vectors(vectors, "the documents' vectors")
        if self.vectors.shape[0] == 0:
            raise ValueError("no documents: nothing to index")
        self.engine, self.documents_sha256 = engine, documents_sha256
        self.build_settings = _settings(SEISMIC_BUILD, seismic, "seismic")
        self.search_settings = _settings(SEISMIC_SEARCH, search_settings, "search_settings")
        self._transposed = self.vectors.T.tocsr()
        self._seismic = self._build_seismic() if engine == "seismic" else None

    def __len__(self):
        return self.vectors.shape[0]

    @property
    def bytes_per_document(self):
        """The bytes a document's vector holds in the index (int32 indices and float32 values of its CSR row)."""
        return (self.vectors.data.nbytes + self.vectors.indices.nbytes) / len(self)

    def _build_seismic(self):
        seismic = _seismic()
        dataset = seismic.SeismicDataset(dim=self.vectors.shape[1])
        csr = self.vectors.sorted_indices()
        dataset.add_documents_by_id(
            [str(i) for i in range(len(self))],
            csr.indices.astype(np.int64),
            csr.data.astype(np.float32),
            csr.indptr.astype(np.int64),
        )
        with _quiet_stdout():
            return seismic.SeismicIndex.build_from_dataset(dataset, **self.build_settings)

    def search(self, queries, top_k=10, engine=None):
        """`(ids int64 [Q, k], scores float32 [Q, k])`, k = min(top_k, documents), best first (ties by lower id),
        padded with (−1, 0) past the documents that share an entry with the query. `engine` ("exact" or the index's
        own) picks the search; "exact" always works."""
        top_k = positive_int(top_k, "top_k")
        queries = checked_vectors(queries, "the queries' vectors")
        if queries.shape[1] != self.vectors.shape[1]:
            raise ValueError(f"the queries are {queries.shape[1]} wide, the documents {self.vectors.shape[1]}")
        engine = engine or self.engine
        if engine == "seismic" and self._seismic is None:
            raise ValueError("this index was built without Seismic (engine='exact')")
        k = min(top_k, len(self))
        if engine == "seismic":
            return self._search_seismic(queries, k)
        ids = np.full((queries.shape[0], k), -1, np.int64)
        scores = np.zeros((queries.shape[0], k), np.float32)
        for start in range(0, queries.shape[0], QUERY_BLOCK):
            block = (queries[start : start + QUERY_BLOCK] @ self._transposed).toarray()
            for row, document_scores in enumerate(block, start):
                ids[row], scores[row] = best_positive(document_scores, k)
        return ids, scores

    def _search_seismic(self, queries, k):
        seismic = _seismic()
        text = seismic.get_seismic_string()
        components = [queries.indices[a:b].astype(str).astype(text) for a, b in zip(queries.indptr, queries.indptr[1:])]
        values = [queries.data[a:b].astype(np.float32) for a, b in zip(queries.indptr, queries.indptr[1:])]
        ids = np.full((queries.shape[0], k), -1, np.int64)
        scores = np.zeros((queries.shape[0], k), np.float32)
        searchable = [row for row in range(queries.shape[0]) if len(components[row])]
        if not searchable:
            return ids, scores
        results = self._seismic.batch_search(
            np.array([str(row) for row in searchable], dtype=text),
            [components[row] for row in searchable],
            [values[row] for row in searchable],
            k=k,
            **self.search_settings,
        )
        for hits in results:  # each hit names its query: the lists need not come in the queries' order
            if not hits:
                continue
            row = int(hits[0][0])
            found = [(int(document), float(score)) for _, score, document in hits if score > 0]
            found.sort(key=lambda hit: (-hit[1], hit[0]))
            for column, (document, score) in enumerate(found[:k]):
                ids[row, column], scores[row, column] = document, score
        return ids, scores

    def save(self, folder, overwrite=False):
        """Writes the index to `folder` atomically (see the module docstring); returns the path."""
        folder = os.fspath(folder)
        with atomic_directory(folder, overwrite=overwrite) as staging:
            self.save_into(staging)
        return folder

    def save_into(self, folder):
        """Writes the index's files into the existing `folder` (not atomically: a caller staging a larger folder
        publishes it)."""
        scipy.sparse.save_npz(os.path.join(folder, VECTORS_FILE), self.vectors)
        if self._seismic is not None:
            with _quiet_stdout():
                self._seismic.save(os.path.join(folder, SEISMIC_STEM))
        meta = {
            "format": SPARSE_FORMAT,
            "engine": self.engine,
            "seismic": self.build_settings,
            "search": self.search_settings,
            "documents": len(self),
            "vocabulary": int(self.vectors.shape[1]),
            "documents_sha256": self.documents_sha256,
        }
        write_index_meta(folder, META_FILE, meta, (VECTORS_FILE, SEISMIC_FILE))

    @classmethod
    def load(cls, folder, documents_sha256=None):
        """Opens a folder `save` wrote; with `documents_sha256`, an index of other documents is refused.

        Raises:
            FileNotFoundError: no such folder, or no sparse.json in it.
            ValueError: a format, engine or count that is not valid, a file that differs from the one written
                (sha256), vectors of another shape than sparse.json says, or other documents.
        """
        folder = os.fspath(folder)
        keys = ["engine", "seismic", "search", "documents", "vocabulary"]
        meta, path = read_index_meta(folder, META_FILE, keys, SPARSE_FORMAT, "a sparse index", ENGINES)
        expected = [VECTORS_FILE] + ([SEISMIC_FILE] if meta["engine"] == "seismic" else [])
        check_index_files(folder, meta, path, documents_sha256, expected)
        try:
            vectors = scipy.sparse.load_npz(os.path.join(folder, VECTORS_FILE))
        except (OSError, ValueError, KeyError) as error:
            raise ValueError(
                f"{folder}/{VECTORS_FILE}: not a sparse matrix ({type(error).__name__}: {error})"
            ) from None
        if vectors.shape != (meta["documents"], meta["vocabulary"]):
            raise ValueError(
                f"{folder}/{VECTORS_FILE}: {vectors.shape}, {META_FILE} says {meta['documents']} × {meta['vocabulary']}"
            )
        index = cls.__new__(cls)
        index.vectors = checked_vectors(vectors, f"{folder}/{VECTORS_FILE}")
        index.engine, index.documents_sha256 = meta["engine"], meta["documents_sha256"]
        index.build_settings = _settings(SEISMIC_BUILD, meta["seismic"], f"{path}: seismic")
        index.search_settings = _settings(SEISMIC_SEARCH, meta["search"], f"{path}: search")
        index._transposed = index.vectors.T.tocsr()
        index._seismic = None
        if index.engine == "seismic":
            with _quiet_stdout():
                index._seismic = _seismic().SeismicIndex.load(os.path.join(folder, SEISMIC_FILE))
        return index

    def set_search_settings(self, **settings):
        """Seismic's search settings (`query_cut`, `heap_factor`) from now on."""
        self.search_settings = _settings(self.search_settings, settings, "search settings")


def _settings(defaults, given, what):
    """`defaults` updated by `given` (a dict of the same keys, each a positive number); ValueError naming `what`."""
    settings = dict(defaults)
    if given is None:
        return settings
    if not isinstance(given, dict):
        raise TypeError(f"{what} must be a dict, got {type(given).__name__}")
    for key, value in given.items():
        if key not in defaults:
            raise ValueError(f"{what}: unknown setting {key!r}; known: {', '.join(defaults)}")
        kind = type(defaults[key])
        if (
            isinstance(value, bool)
            or not isinstance(value, (int, float))
            or value <= 0
            or kind is int
            and value != int(value)
        ):
            raise ValueError(f"{what}: {key} must be a positive {kind.__name__}, got {value!r}")
        settings[key] = kind(value)
    return settings
