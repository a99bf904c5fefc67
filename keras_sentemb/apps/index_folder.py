"""An index folder: a hashed encoder, the corpus, its codes and float vectors, on disk.

`build_index_folder(corpus, folder, model=...)` writes, atomically (a temporary folder
renamed into place):

    folder/hashed_encoder.keras   the HashedEncoder that makes the codes (queries need it)
    folder/index.npz              BinaryIndex (flat, ivf or hnsw): ids = corpus line numbers − 1
    folder/embeddings.npy         float32 unit vectors, for optional re-ranking
    folder/corpus.txt             the corpus lines, so hits can be printed
    folder/meta.json              bits, kind, sizes, how the code was made, sha256 of the corpus
    folder/chunks.npz             with `chunking`: each chunk's line (document) and character span

`IndexFolder(folder).search(queries, k, rerank=r)` hashes the queries, searches the
codes by Hamming distance and, with `rerank`, re-ranks the top k·r by cosine.
This is what `keras-sentemb index build|search` runs.

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

import keras
import numpy as np

from keras_sentemb.chunking.chunking import Chunking
from keras_sentemb.models.hashed_encoder import HashedEncoder
from keras_sentemb.retrieval.binary_index import BinaryIndex, check_kind
from keras_sentemb.training import distill_hashed_encoder
from keras_sentemb.utils.atomic_files import atomic_directory
from keras_sentemb.utils.checked_files import check_keras_file, load_npy, read_json, require_keys
from keras_sentemb.zoo.loading import load_any_encoder

FILES = ("hashed_encoder.keras", "index.npz", "embeddings.npy", "corpus.txt", "meta.json")


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
):
    """Encodes and hashes `corpus` (a list of lines) and writes an index folder.

    `model` is a `HashedEncoder`, a `.keras` file holding one, or anything
    `load_sentence_encoder` takes; for a plain encoder a `bits`-bit head is distilled
    on the corpus embeddings (`HashedEncoder.distill`, `epochs`, `seed`) first.
    `kind` and `index_parameters` choose the `BinaryIndex` ("flat": exact; "ivf", "hnsw":
    FAISS's sub-linear indexes, e.g. `{"ef_search": 128}`). `chunking` (a `Chunking`, its
    `pooling` ignored) indexes the chunks of each line (see the module docstring). Returns the
    folder path.
    """
    check_kind(kind, index_parameters)  # a bad kind or parameter fails before any encoding
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
    if os.path.exists(folder) and not overwrite:
        raise FileExistsError(f"{folder} exists; pass overwrite=True (--overwrite) to replace it")
    encoder = model if not isinstance(model, (str, os.PathLike)) else load_any_encoder(model)
    chunks = None
    if chunking is None:
        embeddings = encoder.encode(corpus, progress=progress)
    else:
        chunks = encoder.encode(corpus, progress=progress, chunking=chunking)
        embeddings = chunks.vectors
    if isinstance(encoder, HashedEncoder):
        hashed, how = encoder, f"the head of {model if isinstance(model, str) else encoder.name}"
    else:
        hashed = distill_hashed_encoder(
            encoder, embeddings, bits, epochs=epochs, seed=seed, verbose=1 if progress else 0
        )
        how = f"distilled on this corpus: {bits} bits, {epochs} epochs, seed {seed}"
    index = BinaryIndex(hashed.bits, kind=kind, **(index_parameters or {}))
    index.add(hashed.hash_embeddings(embeddings))
    text = "".join(line + "\n" for line in corpus)
    meta = {
        "bits": hashed.bits,
        "kind": kind,
        "index_parameters": index.parameters,
        "lines": len(corpus),
        "code": how,
        "encoder": hashed.encoder.name,
        "corpus_sha256": hashlib.sha256(text.encode("utf-8")).hexdigest(),
    }
    if chunks is not None:
        meta["chunking"] = dataclasses.asdict(chunking)
        meta["chunks"] = len(chunks)

    with atomic_directory(folder, overwrite=overwrite) as staging:
        hashed.save(os.path.join(staging, "hashed_encoder.keras"))
        index.save(os.path.join(staging, "index.npz"))
        np.save(os.path.join(staging, "embeddings.npy"), embeddings)
        if chunks is not None:
            np.savez(os.path.join(staging, "chunks.npz"), document=chunks.document, start=chunks.start, end=chunks.end)
        # newline="": written and read back byte for byte (a "\r" inside a line stays in it)
        with open(os.path.join(staging, "corpus.txt"), "w", encoding="utf-8", newline="") as f:
            f.write(text)
        with open(os.path.join(staging, "meta.json"), "w", encoding="utf-8") as f:
            json.dump(meta, f, indent=1)
    return folder


def read_meta(folder):
    """The `meta.json` of an index folder (bits, lines, how the code was made, corpus sha256)."""
    path = os.path.join(folder, "meta.json")
    return require_keys(read_json(path), ["lines"], path)


class IndexFolder:
    """A folder written by `build_index_folder`, opened for searching."""

    def __init__(self, folder):

        self.folder = os.fspath(folder)
        missing = [name for name in FILES if not os.path.exists(os.path.join(self.folder, name))]
        if missing:
            raise FileNotFoundError(f"{self.folder} is not an index folder: missing {missing}")
        self.meta = read_meta(self.folder)
        with open(os.path.join(self.folder, "corpus.txt"), encoding="utf-8", newline="") as f:
            self.corpus = f.read().split("\n")[:-1]
        self.hashed = keras.saving.load_model(check_keras_file(os.path.join(self.folder, "hashed_encoder.keras")))
        self.index = BinaryIndex.load(os.path.join(self.folder, "index.npz"))
        self.embeddings = load_npy(os.path.join(self.folder, "embeddings.npy"), mmap_mode="r")
        self.chunks = None
        rows = self.meta["lines"]
        if "chunking" in self.meta:
            with np.load(os.path.join(self.folder, "chunks.npz")) as chunks:
                self.chunks = {name: chunks[name] for name in ("document", "start", "end")}
            rows = len(self.chunks["document"])
            if rows != self.meta.get("chunks") or int(self.chunks["document"].max(initial=-1)) + 1 != len(self.corpus):
                raise ValueError(f"{self.folder}: chunks.npz disagrees with meta.json and corpus.txt")
        if not len(self.corpus) == self.meta["lines"] or not len(self.index) == len(self.embeddings) == rows:
            raise ValueError(f"{self.folder}: corpus, codes and vectors disagree in size")

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
            found = [_first_hits(document, row_ids, k) for row_ids in ids]
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


def _first_hits(document, chunk_ids, k):
    """Positions in `chunk_ids` of the first hit of each distinct line, at most k (ids -1 skipped)."""
    seen, positions = set(), []
    for position, chunk in enumerate(chunk_ids):
        if chunk < 0:
            continue
        line = int(document[chunk])
        if line not in seen:
            seen.add(line)
            positions.append(position)
            if len(positions) == k:
                break
    return positions
