"""MultiVectorIndex: top-k documents by MaxSim over their token vectors (late interaction, ColBERT).

A document is its token vectors d_j [n, dim] (`MultiVectorEncoder.encode_document`), a query its q_i, and

    score(q, d) = Σ_i max_j q_i · d_j        (÷ |q| for MeanMaxSim)

The documents' vectors are stored at one byte a feature (`Int8Vectors`: a calibrated range a feature) and every
score is computed exactly over them (`utils.maxsim`). Two engines choose which documents are scored:

- "exact": every document, the reference;
- "faiss": the candidates FAISS finds (Khattab & Zaharia 2020's first stage): every token vector in an inverted-file
  index with 8-bit scalar-quantised codes (`faiss.IndexIVFScalarQuantizer`, inner product); each query vector's
  `candidates_per_token` nearest token vectors (`nprobe` lists read) name their documents, and those documents
  are scored exactly. The shipped settings (`FAISS_SEARCH`, chosen on NFCorpus dev) kept 0.966 of the exact search's
  top 10 over NFCorpus test with a trained MiniLM ColBERT (benchmarks/late_interaction.py's model and corpus).

A saved index is a folder: `vectors.npz` (int8 values, the ranges, each document's first token), `tokens.faiss`
(engine "faiss") and `multi_vector.json` (format, engine, settings, sizes, the sha256 of the documents' texts and
of every file, checked before anything is read). It is written atomically; a folder whose files differ from what
was written is refused.

Example:
>>> documents = [np.eye(4, dtype="float32")[:2], np.eye(4, dtype="float32")[2:]]
>>> index = MultiVectorIndex(documents)
>>> ids, scores = index.search([np.eye(4, dtype="float32")[[2]]], top_k=2)
>>> ids.tolist(), scores.round(2).tolist()
([[1, 0]], [[1.0, 0.0]])
"""

import os

import numpy as np

from keras_sentemb.retrieval.int8_vectors import Int8Vectors
from keras_sentemb.utils.argument_checks import positive_int
from keras_sentemb.utils.atomic_files import atomic_directory
from keras_sentemb.utils.index_meta import check_index_files, read_index_meta, write_index_meta
from keras_sentemb.utils.maxsim import maxsim

MULTI_VECTOR_FORMAT = 1
META_FILE = "multi_vector.json"
VECTORS_FILE = "vectors.npz"
FAISS_FILE = "tokens.faiss"
ENGINES = ("exact", "faiss")
INSTALL_HINT = 'pip install "./keras-sentemb[faiss]" (faiss-cpu)'
# The FAISS first stage's settings: `lists` 0 picks 4·√tokens (at most tokens / 39, FAISS' training minimum).
FAISS_BUILD = {"lists": 0}
# Chosen on NFCorpus dev (benchmarks/late_interaction.py's ColBERT, 324 queries): the fastest setting of its grid whose
# top 10 held ≥ 0.97 of the exact search's (0.978 at 18.3 queries/s; 32 / 64 held 0.984 at 10.6). On test (323
# queries, read once) it held 0.966 for that model and 0.951 for sentence-transformers' trainer's.
FAISS_SEARCH = {"nprobe": 64, "candidates_per_token": 32}
EXACT_BLOCK_TOKENS = 1 << 16  # an exact search dequantises this many stored token vectors at a time (32 MB at 128-d)


def _faiss():
    try:
        import faiss  # optional extra: faiss
    except ImportError as error:
        raise ImportError(f"a FAISS multi-vector index needs faiss-cpu: {INSTALL_HINT}") from error
    return faiss


def checked_documents(documents, what):
    """`documents` (a list of [tokens ≥ 1, dim] float arrays of one dim, finite) as float32 arrays; else an error
    naming `what` and the first bad one."""
    if isinstance(documents, np.ndarray) or not isinstance(documents, (list, tuple)):
        raise TypeError(f"{what} must be a list of [tokens, dim] arrays, got {type(documents).__name__}")
    arrays = [np.asarray(document, np.float32) for document in documents]
    for number, array in enumerate(arrays):
        if array.ndim != 2 or not len(array) or array.shape[1] != arrays[0].shape[1] or not array.shape[1]:
            raise ValueError(
                f"{what}: #{number} is {array.shape}; each must be [tokens ≥ 1, {arrays[0].shape[1] or 'dim'}]"
            )
        if not np.isfinite(array).all():
            raise ValueError(f"{what}: #{number} holds NaN or infinity")
    return arrays


class MultiVectorIndex:
    """Top-k by MaxSim over documents' token vectors (see the module docstring).

    Args:
        documents: each document's token vectors, a list of float32 [tokens, dim] (their ids are the positions).
        engine: "exact" or "faiss".
        length_normalize: MeanMaxSim (the model's `similarity_fn_name` "meanmaxsim").
        documents_sha256: `texts_sha256` of the documents' texts (kept, and checked by `load`), or None.
        faiss / search_settings: `FAISS_BUILD` / `FAISS_SEARCH`'s keys over ours.
    """

    def __init__(
        self, documents, engine="exact", length_normalize=False, documents_sha256=None, faiss=None, search_settings=None
    ):
        if engine not in ENGINES:
            raise ValueError(f"engine must be one of {ENGINES}, got {engine!r}")
        documents = checked_documents(documents, "the documents' token vectors")
        if not documents:
            raise ValueError("no documents: nothing to index")
        flat = np.concatenate(documents)
        self.vectors = Int8Vectors.quantize(flat)
        self.offsets = np.cumsum([0] + [len(d) for d in documents]).astype(np.int64)
        self.engine, self.length_normalize, self.documents_sha256 = engine, bool(length_normalize), documents_sha256
        self.build_settings = _settings(FAISS_BUILD, faiss, "faiss", minimum=0)
        self.search_settings = _settings(FAISS_SEARCH, search_settings, "search_settings")
        self._faiss_index = self._build_faiss(flat) if engine == "faiss" else None

    def __len__(self):
        return len(self.offsets) - 1

    @property
    def dim(self):
        return self.vectors.values.shape[1]

    @property
    def tokens(self):
        return len(self.vectors)

    @property
    def bytes_per_document(self):
        """The bytes a document takes in the index: its int8 vectors and first-token offset, and (engine "faiss")
        its share of FAISS' index (the codes and ids of its tokens, the lists' centroids)."""
        stored = self.vectors.values.nbytes + self.offsets.nbytes
        if self._faiss_index is not None:
            faiss = _faiss()
            stored += faiss.serialize_index(self._faiss_index).nbytes
        return stored / len(self)

    def _build_faiss(self, flat):
        faiss = _faiss()
        lists = self.build_settings["lists"] or int(round(4 * np.sqrt(len(flat))))
        lists = max(1, min(lists, len(flat) // 39 or 1))
        quantizer = faiss.IndexFlatIP(self.dim)
        index = faiss.IndexIVFScalarQuantizer(
            quantizer, self.dim, lists, faiss.ScalarQuantizer.QT_8bit, faiss.METRIC_INNER_PRODUCT
        )
        index.train(flat)
        index.add(flat)
        return index

    def document(self, number):
        """Document `number`'s stored token vectors, float32 [tokens, dim] (dequantised)."""
        return self.vectors[slice(self.offsets[number], self.offsets[number + 1])]

    def search(self, queries, top_k=10, engine=None):
        """`(ids int64 [Q, k], scores float32 [Q, k])`, k = min(top_k, documents), best first (ties by lower id);
        with engine "faiss", the documents FAISS names for a query, padded with (−1, 0) past them. `queries`: each
        query's token vectors (a list of [tokens, dim]); `engine` ("exact" or the index's own) picks the
        candidates; "exact" always works."""
        top_k = positive_int(top_k, "top_k")
        queries = checked_documents(queries, "the queries' token vectors") if len(queries) else []
        if queries and queries[0].shape[1] != self.dim:
            raise ValueError(f"the queries' vectors are {queries[0].shape[1]} wide, the documents' {self.dim}")
        engine = engine or self.engine
        if engine not in ENGINES:
            raise ValueError(f"engine must be one of {ENGINES}, got {engine!r}")
        if engine == "faiss" and self._faiss_index is None:
            raise ValueError("this index was built without FAISS (engine='exact')")
        k = min(top_k, len(self))
        ids = np.full((len(queries), k), -1, np.int64)
        scores = np.zeros((len(queries), k), np.float32)
        everyone = np.arange(len(self))
        every_score = self._exact_scores(queries) if engine == "exact" else None
        for row, query in enumerate(queries):
            if every_score is None:
                candidates = self._candidates(query)
                found = maxsim([query], [self.document(d) for d in candidates], self.length_normalize)[0]
            else:
                candidates, found = everyone, every_score[row]
            order = np.lexsort((candidates, -found))[:k]
            ids[row, : len(order)], scores[row, : len(order)] = candidates[order], found[order]
        return ids, scores

    def _exact_scores(self, queries):
        """MaxSim [queries, documents] of every document: the stored vectors dequantised a block of whole documents
        (about `EXACT_BLOCK_TOKENS` tokens) at a time, once for all the queries."""
        scores = np.zeros((len(queries), len(self)), np.float32)
        start = 0
        while start < len(self):
            stop = int(np.searchsorted(self.offsets, self.offsets[start] + EXACT_BLOCK_TOKENS, side="right")) - 1
            stop = min(max(stop, start + 1), len(self))
            block = self.vectors[slice(self.offsets[start], self.offsets[stop])]
            bounds = self.offsets[start : stop + 1] - self.offsets[start]
            documents = [block[a:b] for a, b in zip(bounds, bounds[1:])]
            scores[:, start:stop] = maxsim(queries, documents, self.length_normalize)
            start = stop
        return scores

    def _candidates(self, query):
        """The documents (sorted ids) whose token vectors FAISS finds nearest to any of the query's."""
        self._faiss_index.nprobe = self.search_settings["nprobe"]
        per_token = min(self.search_settings["candidates_per_token"], self.tokens)
        _, tokens = self._faiss_index.search(np.ascontiguousarray(query, np.float32), per_token)
        tokens = tokens[tokens >= 0]
        return np.unique(np.searchsorted(self.offsets, tokens, side="right") - 1)

    def save(self, folder, overwrite=False):
        """Writes the index to `folder` atomically (see the module docstring); returns the path."""
        folder = os.fspath(folder)
        with atomic_directory(folder, overwrite=overwrite) as staging:
            self.save_into(staging)
        return folder

    def save_into(self, folder):
        """Writes the index's files into the existing `folder` (not atomically: a caller staging a larger folder
        publishes it)."""
        with open(os.path.join(folder, VECTORS_FILE), "wb") as f:
            np.savez(
                f,
                values=self.vectors.values,
                minimum=self.vectors.minimum,
                step=self.vectors.step,
                offsets=self.offsets,
            )
        if self._faiss_index is not None:
            _faiss().write_index(self._faiss_index, os.path.join(folder, FAISS_FILE))
        meta = {
            "format": MULTI_VECTOR_FORMAT,
            "engine": self.engine,
            "length_normalize": self.length_normalize,
            "faiss": self.build_settings,
            "search": self.search_settings,
            "documents": len(self),
            "tokens": self.tokens,
            "dim": self.dim,
            "documents_sha256": self.documents_sha256,
        }
        write_index_meta(folder, META_FILE, meta, (VECTORS_FILE, FAISS_FILE))

    @classmethod
    def load(cls, folder, documents_sha256=None):
        """Opens a folder `save` wrote; with `documents_sha256`, an index of other documents is refused.

        Raises:
            FileNotFoundError: no such folder, or no multi_vector.json in it.
            ValueError: a format, engine or count that is not valid, a file that differs from the one written
                (sha256), arrays of other shapes than multi_vector.json says, or other documents.
        """
        folder = os.fspath(folder)
        keys = ["engine", "length_normalize", "faiss", "search", "documents", "tokens", "dim"]
        meta, path = read_index_meta(folder, META_FILE, keys, MULTI_VECTOR_FORMAT, "a multi-vector index", ENGINES)
        for key in ("documents", "tokens", "dim"):
            if type(meta[key]) is not int or meta[key] < 1:
                raise ValueError(f"{path}: {key} must be an integer ≥ 1, got {meta[key]!r}")
        expected = [VECTORS_FILE] + ([FAISS_FILE] if meta["engine"] == "faiss" else [])
        check_index_files(folder, meta, path, documents_sha256, expected)
        arrays = _read_vectors(os.path.join(folder, VECTORS_FILE), meta)
        index = cls.__new__(cls)
        index.vectors = Int8Vectors(arrays["values"], arrays["minimum"], arrays["step"])
        index.offsets = arrays["offsets"]
        index.engine, index.documents_sha256 = meta["engine"], meta["documents_sha256"]
        index.length_normalize = bool(meta["length_normalize"])
        index.build_settings = _settings(FAISS_BUILD, meta["faiss"], f"{path}: faiss", minimum=0)
        index.search_settings = _settings(FAISS_SEARCH, meta["search"], f"{path}: search")
        index._faiss_index = None
        if index.engine == "faiss":
            faiss_path = os.path.join(folder, FAISS_FILE)
            try:
                index._faiss_index = _faiss().read_index(faiss_path)
            except RuntimeError as error:
                raise ValueError(f"{faiss_path}: not a FAISS index ({str(error).splitlines()[0]})") from None
            if index._faiss_index.ntotal != meta["tokens"] or index._faiss_index.d != meta["dim"]:
                raise ValueError(
                    f"{faiss_path}: {index._faiss_index.ntotal} vectors of {index._faiss_index.d}, not {path}'s"
                )
        return index

    def set_search_settings(self, **settings):
        """The FAISS first stage's search settings (`nprobe`, `candidates_per_token`) from now on."""
        self.search_settings = _settings(self.search_settings, settings, "search settings")


def _read_vectors(path, meta):
    try:
        with np.load(path, allow_pickle=False) as data:
            arrays = {name: data[name] for name in ("values", "minimum", "step", "offsets")}
    except (OSError, ValueError, KeyError) as error:
        raise ValueError(f"{path}: not the index's vectors ({type(error).__name__}: {error})") from None
    shapes = {
        "values": ((meta["tokens"], meta["dim"]), np.int8),
        "minimum": ((meta["dim"],), np.float32),
        "step": ((meta["dim"],), np.float32),
        "offsets": ((meta["documents"] + 1,), np.int64),
    }
    for name, (shape, dtype) in shapes.items():
        if arrays[name].shape != shape or arrays[name].dtype != dtype:
            raise ValueError(
                f"{path}: {name} is {arrays[name].dtype} {arrays[name].shape}, not {dtype.__name__} {shape}"
            )
    offsets = arrays["offsets"]
    if offsets[0] != 0 or offsets[-1] != meta["tokens"] or (np.diff(offsets) < 1).any():
        raise ValueError(
            f"{path}: offsets are not each document's first token (0, increasing, ending at {meta['tokens']})"
        )
    return arrays


def _settings(defaults, given, what, minimum=1):
    """`defaults` updated by `given` (a dict of the same keys, each an int ≥ `minimum`); ValueError naming `what`."""
    settings = dict(defaults)
    if given is None:
        return settings
    if not isinstance(given, dict):
        raise TypeError(f"{what} must be a dict, got {type(given).__name__}")
    for key, value in given.items():
        if key not in defaults:
            raise ValueError(f"{what}: unknown setting {key!r}; known: {', '.join(defaults)}")
        if type(value) is not int or value < minimum:
            raise ValueError(f"{what}: {key} must be an integer ≥ {minimum}, got {value!r}")
        settings[key] = value
    return settings
