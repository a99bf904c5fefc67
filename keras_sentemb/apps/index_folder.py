"""An index folder: a hashed encoder, the corpus, its codes and float vectors, on disk.

`build_index_folder(corpus, folder, model=...)` writes, atomically (a temporary folder
renamed into place):

    folder/hashed_encoder.keras   the HashedEncoder that makes the codes (queries need it)
    folder/index.npz              BinaryIndex (flat, ivf or hnsw): ids = corpus line numbers − 1
    folder/embeddings.npy         float32 unit vectors, for optional re-ranking
    folder/corpus.txt             the corpus lines, so hits can be printed
    folder/meta.json              bits, kind, sizes, how the code was made, sha256 of the corpus
    folder/chunks.npz             with `chunking`: each chunk's line (document) and character span
    folder/lexical/               with `lexical`: a BM25 index of the lines (`LexicalIndex`; its
                                  lexical.json names its format and the sha256 of the lines)

`IndexFolder(folder).search(queries, k, rerank=r)` hashes the queries, searches the
codes by Hamming distance and, with `rerank`, re-ranks the top k·r by cosine.
This is what `keras-sentemb index build|search` runs. A folder with a lexical index also searches
hybrid (`search_hybrid`): the code search's and BM25's top hits fused by reciprocal rank (Hamming
distances and BM25 scores share no scale, so ranks fuse them). A lexical index whose lines differ
from the corpus' is refused when the folder opens.

With `chunking` (a `Chunking`), each line is a document cut into chunks: the codes and vectors
are the chunks', and a search returns documents, each scored by its best chunk (the smallest
Hamming distance, or with `rerank` the highest cosine), with that chunk
(`search_documents`).

Example:
(Not run as a doctest: it loads pretrained weights, which takes seconds; the tests run the same calls.)
    build_index_folder(lines, "corpus_index", model="minilm-l6", bits=256)
    IndexFolder("corpus_index").search(["How do I bake bread?"], k=5)
"""

import dataclasses
import hashlib
import json
import os
import re

import keras
import numpy as np

from keras_sentemb.chunking.chunking import Chunking
from keras_sentemb.models.hashed_encoder import HashedEncoder
from keras_sentemb.retrieval.approximate_binary_search import KINDS
from keras_sentemb.retrieval.best_chunk_search import first_hit_positions
from keras_sentemb.retrieval.binary_index import BinaryIndex, check_kind
from keras_sentemb.retrieval.lexical_index import LexicalIndex, lexical_options, texts_sha256
from keras_sentemb.retrieval.ranked_runs import rank_scored, reranker_scores
from keras_sentemb.retrieval.run_fusion import ReciprocalRankFusion
from keras_sentemb.training import distill_hashed_encoder
from keras_sentemb.utils.argument_checks import finite_rows, positive_int
from keras_sentemb.utils.checked_files import (
    check_keras_file,
    load_npy,
    npz_array,
    open_npz,
    open_regular_file,
    read_json,
    regular_file_present,
    require_keys,
)
from keras_sentemb.utils.output_targets import check_output_folder, replaced_folder
from keras_sentemb.zoo.loading import load_any_encoder

FILES = ("hashed_encoder.keras", "index.npz", "embeddings.npy", "corpus.txt", "meta.json")
LEXICAL_FOLDER = "lexical"
INDEX_KIND = "index"  # its marker (utils.output_targets): --overwrite replaces only such a folder


def _enough_to_distil(count, what):
    """An index of a plain encoder learns its binary code on the corpus (`distill_hashed_encoder`), which takes
    two vectors at least."""
    if count < 2:
        raise ValueError(
            f"the index learns its binary code on the corpus, which needs 2 {what} or more; the corpus has {count}: "
            "add lines, or index with a HashedEncoder (--model a hashed .keras or zoo model)"
        )


def build_index_folder(
    corpus,
    folder,
    model="minilm-l6",
    bits=256,
    epochs=5,
    seed=0,
    overwrite=False,
    progress=None,
    kind="flat",
    index_parameters=None,
    chunking=None,
    inputs=(),
    lexical=None,
):
    """Encodes and hashes `corpus` (a list of lines) and writes an index folder.

    `model` is a `HashedEncoder`, a `.keras` file holding one, or anything
    `load_sentence_encoder` takes; for a plain encoder a `bits`-bit head is distilled
    on the corpus embeddings (`HashedEncoder.distill`, `epochs`, `seed`) first.
    `kind` and `index_parameters` choose the `BinaryIndex` ("flat": exact; "ivf", "hnsw":
    FAISS's sub-linear indexes, e.g. `{"ef_search": 128}`). `chunking` (a `Chunking`, its
    `pooling` ignored) indexes the chunks of each line (see the module docstring). Returns the
    folder path.

    `lexical` (a `Bm25`, or True for BEIR's parameters) adds a BM25 index of the lines (`lexical/`).

    `overwrite` replaces only an index folder this project wrote, never the current directory, the
    home folder, `model`'s own path or any of `inputs` (the files the corpus came from) nor a folder
    holding them (`utils.output_targets`); that is checked before anything is encoded.
    """
    check_kind(kind, index_parameters)  # a bad kind or parameter fails before any encoding
    lexical = lexical_options(lexical)
    if chunking is not None:
        if not isinstance(chunking, Chunking):
            raise TypeError(f"chunking must be a Chunking, got {type(chunking).__name__}")
        chunking = dataclasses.replace(chunking, pooling=None)

    if not corpus:
        raise ValueError("the corpus is empty: nothing to index")
    broken = next((i for i, line in enumerate(corpus) if "\n" in line), None)
    if broken is not None:
        raise ValueError(f"corpus line {broken} contains a newline; an index holds one text per line")
    folder = os.fspath(folder)
    inputs = [*inputs, *([model] if isinstance(model, (str, os.PathLike)) else [])]
    check_output_folder(folder, INDEX_KIND, overwrite, inputs)
    # BM25 first: a corpus without a word to index fails before any encoding
    lexical_index = LexicalIndex(corpus, lexical, progress) if lexical is not None else None
    encoder = model if not isinstance(model, (str, os.PathLike)) else load_any_encoder(model)
    distilled = not isinstance(encoder, HashedEncoder)
    if distilled and chunking is None:
        _enough_to_distil(len(corpus), "lines")  # before any encoding
    chunks = None
    if chunking is None:
        embeddings = encoder.encode(corpus, progress=progress)
    else:
        chunks = encoder.encode(corpus, progress=progress, chunking=chunking)
        embeddings = chunks.vectors
        if distilled:
            _enough_to_distil(len(embeddings), "chunks")
    finite_rows(embeddings, "the corpus vectors")
    if isinstance(encoder, HashedEncoder):
        hashed, how = encoder, f"the head of {model if isinstance(model, str) else encoder.name}"
    else:
        hashed = distill_hashed_encoder(
            encoder, embeddings, bits, epochs=epochs, seed=seed, verbose=1 if progress else 0
        )
        how = f"distilled on this corpus: {bits} bits, {epochs} epochs, seed {seed}"
    index = BinaryIndex(hashed.bits, kind=kind, **(index_parameters or {}))
    index.add(hashed.hash_embeddings(embeddings))
    text = "".join(line + "\n" for line in corpus).encode("utf-8")
    meta = {
        "bits": hashed.bits,
        "kind": kind,
        "index_parameters": index.parameters,
        "lines": len(corpus),
        "code": how,
        "encoder": hashed.encoder.name,
        "corpus_sha256": hashlib.sha256(text).hexdigest(),
        "corpus_bytes": len(text),
        "embedding_dim": int(embeddings.shape[1]),
    }
    if chunks is not None:
        meta["chunking"] = dataclasses.asdict(chunking)
        meta["chunks"] = len(chunks)

    with replaced_folder(folder, INDEX_KIND, overwrite, inputs) as staging:
        hashed.save(os.path.join(staging, "hashed_encoder.keras"))
        index.save(os.path.join(staging, "index.npz"))
        np.save(os.path.join(staging, "embeddings.npy"), embeddings)
        if chunks is not None:
            np.savez(os.path.join(staging, "chunks.npz"), document=chunks.document, start=chunks.start, end=chunks.end)
        # binary: written and read back byte for byte (a "\r" inside a line stays in it)
        with open(os.path.join(staging, "corpus.txt"), "wb") as f:
            f.write(text)
        if lexical_index is not None:
            os.mkdir(os.path.join(staging, LEXICAL_FOLDER))
            lexical_index.save_into(os.path.join(staging, LEXICAL_FOLDER))
        with open(os.path.join(staging, "meta.json"), "w", encoding="utf-8") as f:
            json.dump(meta, f, indent=1)
    return folder


def read_meta(folder):
    """The `meta.json` of an index folder (bits, lines, how the code was made, corpus sha256), each
    value checked for type and range: `ValueError("…/meta.json: key=value: reason")` otherwise."""
    path = os.path.join(folder, "meta.json")
    meta = require_keys(read_json(path), ["lines", "bits", "kind", "corpus_sha256"], path)
    checks = {
        "lines": lambda v: _is_int(v) and v >= 1,
        "bits": lambda v: _is_int(v) and v >= 8 and v % 8 == 0,
        "kind": lambda v: v in KINDS,
        "corpus_sha256": lambda v: isinstance(v, str) and re.fullmatch("[0-9a-f]{64}", v) is not None,
        "corpus_bytes": lambda v: _is_int(v) and v >= 0,
        "embedding_dim": lambda v: _is_int(v) and v >= 1,
        "chunks": lambda v: _is_int(v) and v >= 1,
        "chunking": lambda v: isinstance(v, dict),
    }
    for key, check in checks.items():
        if key in meta and not check(meta[key]):
            raise ValueError(f"{path}: {key}={meta[key]!r} is not valid for an index folder")
    if ("chunking" in meta) != ("chunks" in meta):
        raise ValueError(f"{path}: a chunked index records both chunking and chunks")
    return meta


def _is_int(value):
    return type(value) is int


def read_corpus(path, meta):
    """The lines of corpus.txt, after checking its size and sha256 against meta.json."""
    with open_regular_file(path) as f:
        size = os.fstat(f.fileno()).st_size
        expected = meta.get("corpus_bytes")
        if expected is not None and size != expected:
            raise ValueError(f"{path}: {size} bytes, but meta.json records {expected}: not this index's corpus")
        data = f.read(size + 1)
    if hashlib.sha256(data).hexdigest() != meta["corpus_sha256"]:
        raise ValueError(
            f"{path}: its sha256 differs from meta.json's corpus_sha256: not the corpus this index was built from"
        )
    return data.decode("utf-8").split("\n")[:-1]  # the digest matched: what build_index_folder wrote


def open_index_folder(folder, files, read_meta, what):
    """`(folder, meta, corpus)` of an index folder of any kind: its `files` present as regular files, meta.json read
    by `read_meta`, corpus.txt checked against it (size, sha256, line count). Raises FileNotFoundError (no folder, a
    file missing: `what` it is not) or ValueError naming the file."""
    folder = os.fspath(folder)
    if not os.path.isdir(folder):
        raise FileNotFoundError(f"{folder}: no such index folder")
    missing = [name for name in files if not regular_file_present(os.path.join(folder, name))]
    if missing:
        raise FileNotFoundError(f"{folder} is not {what}: missing {missing}")
    meta = read_meta(folder)
    corpus = read_corpus(os.path.join(folder, "corpus.txt"), meta)
    if len(corpus) != meta["lines"]:
        raise ValueError(f"{folder}: corpus.txt has {len(corpus)} lines, meta.json says {meta['lines']}")
    return folder, meta, corpus


class IndexFolder:
    """A folder written by `build_index_folder`, opened for searching.

    Every file is read through the checked readers (`utils.checked_files`): regular files only (a
    FIFO or a device is refused at once), the corpus verified against meta.json's size and
    sha256, the arrays' members, dtypes and shapes checked against meta.json and each other, every
    chunk's line and character span checked. Anything else is one `ValueError` naming the file.
    """

    def __init__(self, folder):
        self.folder, self.meta, self.corpus = open_index_folder(folder, FILES, read_meta, "an index folder")
        self.chunks = None
        rows = self.meta["lines"]
        if "chunking" in self.meta:
            self.chunks = _read_chunks(os.path.join(self.folder, "chunks.npz"), self.meta, self.corpus)
            rows = len(self.chunks["document"])
        self.index = BinaryIndex.load(os.path.join(self.folder, "index.npz"))
        if len(self.index) != rows or self.index.bits != self.meta["bits"]:
            raise ValueError(
                f"{self.folder}/index.npz: holds {len(self.index)} codes of {self.index.bits} bits; "
                f"meta.json says {rows} of {self.meta['bits']}"
            )
        path = os.path.join(self.folder, "embeddings.npy")
        self.embeddings = load_npy(path, mmap_mode="r")
        dim = self.meta.get("embedding_dim")
        if (
            self.embeddings.ndim != 2
            or self.embeddings.dtype != np.float32
            or len(self.embeddings) != rows
            or (dim is not None and self.embeddings.shape[1] != dim)
        ):
            raise ValueError(
                f"{path}: holds {self.embeddings.dtype} {self.embeddings.shape}; expected float32 "
                f"({rows}, {dim if dim is not None else 'd'})"
            )
        self.lexical = None
        if os.path.lexists(os.path.join(self.folder, LEXICAL_FOLDER)):
            self.lexical = LexicalIndex.load(
                os.path.join(self.folder, LEXICAL_FOLDER), documents_sha256=texts_sha256(self.corpus)
            )
        self.hashed = keras.saving.load_model(check_keras_file(os.path.join(self.folder, "hashed_encoder.keras")))
        if self.hashed.bits != self.meta["bits"] or self.hashed.embedding_dim != self.embeddings.shape[1]:
            raise ValueError(
                f"{self.folder}/hashed_encoder.keras: makes {self.hashed.bits}-bit codes of "
                f"{self.hashed.embedding_dim}-d vectors; the folder holds {self.meta['bits']}-bit codes of "
                f"{self.embeddings.shape[1]}-d vectors"
            )

    def search(self, queries, k=5, rerank=0):
        """`(scores, ids)` [Q, k'] with k' = min(k, corpus size): Hamming distances
        (rerank=0) or cosine similarities of the re-ranked top k·rerank; ids index the corpus
        (-1 where an approximate index found fewer than k' lines). For a chunked folder, the
        lines' best chunks decide (`search_documents`)."""
        scores, ids, _ = self.search_documents(queries, k, rerank)
        return scores, ids

    def search_documents(self, queries, k=5, rerank=0):
        """`(scores, ids, chunk ids)` [Q, k']: as `search`; for a chunked folder each line is
        scored by its best chunk, whose row (in `chunks`) is returned too (-1 in an unchunked
        folder, where a line is its own chunk)."""
        if not queries:
            raise ValueError("no queries to search for")
        k = min(k, len(self.corpus)) if isinstance(k, int) and k > 0 else k
        vectors = self.hashed.encode(queries)
        codes = self.hashed.hash_embeddings(vectors)
        if self.chunks is None:
            if rerank:
                scores, ids = self.index.search_and_rerank(codes, vectors, self.embeddings, k, factor=rerank)
            else:
                scores, ids = self.index.search(codes, k)
            return scores, ids, np.full(ids.shape, -1, np.int64)
        return self._best_chunks(codes, vectors, k, rerank)

    def search_hybrid(self, queries, k=5, rerank=0, depth=100):
        """`(scores, ids)` [Q, k']: the code search's (`search_documents`, with `rerank`) and BM25's
        best `max(depth, k)` lines fused by reciprocal rank (k = 60): score = Σ 1 / (60 + rank);
        ids -1 past the lines either found. Needs a folder built with `lexical`."""
        if self.lexical is None:
            raise ValueError(f"{self.folder} has no lexical index: build it with lexical=True (index build --lexical)")
        k, depth = positive_int(k, "k"), positive_int(depth, "depth")
        lexical_ids, _ = self.lexical.search(queries, max(depth, k))
        _, ids, _ = self.search_documents(queries, min(max(depth, k), len(self.corpus)), rerank)

        def ranks(found):  # each search's own order (its ties included)
            return {row: rank_scored([int(line) for line in lines if line >= 0]) for row, lines in enumerate(found)}

        fused = ReciprocalRankFusion().fuse([ranks(ids), ranks(lexical_ids)], top_k=k)
        k = min(k, len(self.corpus))
        out_scores, out_ids = np.zeros((len(queries), k), np.float32), np.full((len(queries), k), -1, np.int64)
        for row in range(len(queries)):
            ranked = list(fused[row].items())
            out_ids[row, : len(ranked)] = [line for line, _ in ranked]
            out_scores[row, : len(ranked)] = [score for _, score in ranked]
        return out_scores, out_ids

    def rerank_hits(self, queries, ids, reranker, batch_size=64):
        """`(scores, ids)` [Q, k]: each query's hit lines `ids` (from `search`, `search_documents` or
        `search_hybrid`) re-ordered by `reranker.predict_pairs(query, line)` (a cross-encoder of one
        label), best first, ties in the given order; ids -1 stay last with score -inf."""
        ids = np.asarray(ids, np.int64)
        if ids.ndim != 2 or len(ids) != len(queries):
            raise ValueError(f"ids must be [{len(queries)}, k] hit lines, got shape {ids.shape}")
        found = [
            (row, column) for row in range(ids.shape[0]) for column in range(ids.shape[1]) if ids[row, column] >= 0
        ]
        pair_scores = reranker_scores(
            reranker,
            [queries[row] for row, _ in found],
            [self.corpus[ids[row, column]] for row, column in found],
            batch_size,
            progress=False,
        )
        scores = np.full(ids.shape, -np.inf, np.float32)
        for (row, column), score in zip(found, pair_scores):
            scores[row, column] = score
        order = np.lexsort((np.broadcast_to(np.arange(ids.shape[1]), ids.shape), -scores), axis=1)
        return np.take_along_axis(scores, order, axis=1), np.take_along_axis(ids, order, axis=1)

    def _best_chunks(self, codes, vectors, k, rerank):
        """Searches ever more chunks (k·4, doubling) until each query has k distinct lines among
        them, or every chunk is seen: hits come best first, so a line's first hit is its best chunk."""
        document = self.chunks["document"]
        wanted = k * 4
        while True:
            wanted = min(wanted, len(self.index))
            if rerank:
                scores, ids = self.index.search_and_rerank(codes, vectors, self.embeddings, wanted, factor=rerank)
            else:
                scores, ids = self.index.search(codes, wanted)
            found = [first_hit_positions(document, row_ids, k) for row_ids in ids]
            if wanted == len(self.index) or all(len(hits) == k for hits in found):
                break
            wanted *= 2
        out_scores = np.zeros((len(ids), k), scores.dtype)
        out_ids = np.full((len(ids), k), -1, np.int64)
        out_chunks = np.full((len(ids), k), -1, np.int64)
        for row, hits in enumerate(found):
            for column, position in enumerate(hits):
                out_scores[row, column] = scores[row, position]
                out_chunks[row, column] = ids[row, position]
                out_ids[row, column] = document[ids[row, position]]
        return out_scores, out_ids, out_chunks

    def chunk_text(self, chunk):
        """The text of chunk row `chunk` (cut from its line)."""
        line = self.corpus[int(self.chunks["document"][chunk])]
        return line[int(self.chunks["start"][chunk]) : int(self.chunks["end"][chunk])]


def _read_chunks(path, meta, corpus):
    """chunks.npz's {document, start, end}, each row checked: its line exists, its span lies in it."""
    with open_npz(path) as arrays:
        chunks = {name: npz_array(arrays, name, path) for name in ("document", "start", "end")}
    for name, values in chunks.items():
        if values.ndim != 1 or values.dtype.kind not in "iu" or len(values) != meta["chunks"]:
            raise ValueError(
                f"{path}: {name} holds {values.dtype} {values.shape}; expected {meta['chunks']} integers (meta.json)"
            )
        chunks[name] = values.astype(np.int64)
    document, start, end = chunks["document"], chunks["start"], chunks["end"]
    bad = np.flatnonzero((document < 0) | (document >= len(corpus)))
    if bad.size:
        raise ValueError(
            f"{path}: chunk {bad[0]} belongs to line {document[bad[0]]}, outside the corpus' {len(corpus)} lines "
            f"({bad.size} such chunks)"
        )
    if np.any(np.diff(document) < 0) or np.unique(document).size != len(corpus):
        raise ValueError(
            f"{path}: the chunks do not cover every line in order (each line has its chunks, first to last)"
        )
    lengths = np.array([len(line) for line in corpus], np.int64)[document]
    bad = np.flatnonzero((start < 0) | (start > end) | (end > lengths))
    if bad.size:
        row = bad[0]
        raise ValueError(
            f"{path}: chunk {row} spans characters {start[row]}..{end[row]} of line {document[row] + 1}, which has "
            f"{lengths[row]} ({bad.size} such chunks)"
        )
    return chunks
