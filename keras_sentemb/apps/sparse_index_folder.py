"""A sparse index folder: a SparseEncoder, the corpus and its lines' learned sparse vectors, on disk.

`build_sparse_index_folder(corpus, folder, model=...)` writes, atomically (a temporary folder renamed into place,
marked as an index folder so that `--overwrite` replaces only such a folder):

    folder/sparse_encoder.keras   the SparseEncoder (both sides: queries need it)
    folder/sparse/                the `SparseIndex` of the lines' `encode_document` rows (exact, or Seismic's)
    folder/corpus.txt             the corpus lines, so hits can be printed
    folder/meta.json              kind "sparse", engine, sizes, the sha256 of the corpus and of the model file

`SparseIndexFolder(folder).search(queries, k)` encodes the queries (`encode_query`: an inference-free model's
needs no transformer) and searches the index; every file is checked against meta.json first. This is what
`keras-sentemb index build --kind sparse` and `index search` on such a folder run.

Example:
(Not run as a doctest: it builds a model from a folder; tests/apps/test_sparse_index_command.py runs the same calls.)
    build_sparse_index_folder(lines, "corpus_sparse", model="models/splade")
    SparseIndexFolder("corpus_sparse").search(["How do I bake bread?"], k=5)
"""

import hashlib
import json
import os
import re

import keras

from keras_sentemb.apps.index_folder import INDEX_KIND, open_index_folder
from keras_sentemb.models.sparse_encoder import SparseEncoder
from keras_sentemb.retrieval.lexical_index import texts_sha256
from keras_sentemb.retrieval.sparse_index import ENGINES, SparseIndex
from keras_sentemb.utils.checked_files import check_keras_file, read_json, regular_file_present, require_keys
from keras_sentemb.utils.file_digests import file_sha256
from keras_sentemb.utils.output_targets import check_output_folder, replaced_folder

SPARSE_KIND = "sparse"
MODEL_FILE = "sparse_encoder.keras"
INDEX_SUBFOLDER = "sparse"
FILES = (MODEL_FILE, "corpus.txt", "meta.json")
# A line is one document; a sparse encoder reads its first few hundred tokens. A longer line is refused, not
# tokenised whole: it is almost always a file without line ends.
MAX_DOCUMENT_BYTES = 1 << 20


def is_sparse_index_folder(folder):
    """Whether `folder`'s meta.json says kind "sparse" (an index folder of `build_sparse_index_folder`)."""
    path = os.path.join(os.fspath(folder), "meta.json")
    if not regular_file_present(path):
        return False
    try:
        return read_json(path).get("kind") == SPARSE_KIND
    except (ValueError, AttributeError):
        return False


def _checked_corpus(corpus):
    if not corpus:
        raise ValueError("the corpus is empty: nothing to index")
    for number, line in enumerate(corpus, start=1):
        if "\n" in line:
            raise ValueError(f"corpus line {number} contains a newline; an index holds one text per line")
        size = len(line.encode("utf-8", "surrogatepass"))
        if size > MAX_DOCUMENT_BYTES:
            raise ValueError(
                f"corpus line {number}: {size:,} bytes, over the {MAX_DOCUMENT_BYTES:,} a document may hold (a sparse "
                "encoder reads its first tokens only): split the file into lines"
            )


def build_sparse_index_folder(
    corpus, folder, model, engine="seismic", overwrite=False, progress=None, inputs=(), batch_size=32
):
    """Encodes `corpus` (a list of lines) with a `SparseEncoder` (`model`: one, a sentence-transformers
    SparseEncoder folder, or a `.keras` file holding one) and writes a sparse index folder (the module docstring);
    returns its path. `engine`: "seismic" (approximate, fast) or "exact". Everything is checked (the corpus, the
    output folder, the model) before anything is encoded or written."""
    if engine not in ENGINES:
        raise ValueError(f"engine must be one of {ENGINES}, got {engine!r}")
    _checked_corpus(corpus)
    folder = os.fspath(folder)
    inputs = [*inputs, *([model] if isinstance(model, (str, os.PathLike)) else [])]
    check_output_folder(folder, INDEX_KIND, overwrite, inputs)
    encoder = model if isinstance(model, SparseEncoder) else load_sparse_encoder(model)
    vectors = encoder.encode_document(corpus, batch_size=batch_size, progress=progress)
    index = SparseIndex(vectors, engine=engine, documents_sha256=texts_sha256(corpus))
    text = "".join(line + "\n" for line in corpus).encode("utf-8")
    with replaced_folder(folder, INDEX_KIND, overwrite, inputs) as staging:
        encoder.save(os.path.join(staging, MODEL_FILE))
        with open(os.path.join(staging, "corpus.txt"), "wb") as f:
            f.write(text)
        os.mkdir(os.path.join(staging, INDEX_SUBFOLDER))
        index.save_into(os.path.join(staging, INDEX_SUBFOLDER))
        meta = {
            "kind": SPARSE_KIND,
            "engine": engine,
            "lines": len(corpus),
            "encoder": encoder.name,
            "vocabulary": int(encoder.embedding_dim),
            "corpus_sha256": hashlib.sha256(text).hexdigest(),
            "corpus_bytes": len(text),
            "model_sha256": file_sha256(os.path.join(staging, MODEL_FILE)),
        }
        with open(os.path.join(staging, "meta.json"), "w", encoding="utf-8") as f:
            json.dump(meta, f, indent=1)
    return folder


def load_sparse_encoder(spec):
    """A `SparseEncoder` from a sentence-transformers SparseEncoder folder or a `.keras` file holding one."""
    spec = os.fspath(spec)
    if spec.endswith(".keras"):
        model = keras.saving.load_model(check_keras_file(spec))
        if not isinstance(model, SparseEncoder):
            raise TypeError(f"{spec} holds a {type(model).__name__}, not a SparseEncoder")
        return model
    return SparseEncoder.from_pretrained(spec)


def read_sparse_meta(folder):
    """The meta.json of a sparse index folder, each value checked: ValueError naming the key otherwise."""
    path = os.path.join(folder, "meta.json")
    keys = ["kind", "engine", "lines", "vocabulary", "corpus_sha256", "corpus_bytes", "model_sha256"]
    meta = require_keys(read_json(path), keys, path)
    digest = lambda v: isinstance(v, str) and re.fullmatch("[0-9a-f]{64}", v) is not None  # noqa: E731
    checks = {
        "kind": lambda v: v == SPARSE_KIND,
        "engine": lambda v: v in ENGINES,
        "lines": lambda v: type(v) is int and v >= 1,
        "vocabulary": lambda v: type(v) is int and v >= 1,
        "corpus_sha256": digest,
        "corpus_bytes": lambda v: type(v) is int and v >= 0,
        "model_sha256": digest,
    }
    for key, check in checks.items():
        if not check(meta[key]):
            raise ValueError(f"{path}: {key}={meta[key]!r} is not valid for a sparse index folder")
    return meta


class SparseIndexFolder:
    """A folder of `build_sparse_index_folder`, opened for searching: meta.json, the corpus (size and sha256), the
    index (its files' sha256 and its documents' texts) and the model file (sha256) are checked; anything else is one
    `ValueError` naming the file."""

    def __init__(self, folder):
        self.folder, self.meta, self.corpus = open_index_folder(
            folder, FILES, read_sparse_meta, "a sparse index folder"
        )
        self.index = SparseIndex.load(os.path.join(self.folder, INDEX_SUBFOLDER), texts_sha256(self.corpus))
        if self.index.vectors.shape != (self.meta["lines"], self.meta["vocabulary"]):
            raise ValueError(f"{self.folder}/{INDEX_SUBFOLDER}: {self.index.vectors.shape}, not meta.json's sizes")
        model_path = os.path.join(self.folder, MODEL_FILE)
        if file_sha256(model_path) != self.meta["model_sha256"]:
            raise ValueError(
                f"{model_path}: its sha256 differs from meta.json's: not the model this index was built with"
            )
        self.encoder = load_sparse_encoder(model_path)

    def search(self, queries, k=5, engine=None):
        """`(scores, ids)` [Q, k'] with k' = min(k, corpus lines): dot products, best first; ids index the corpus
        (−1 past the lines that share no vocabulary entry with the query). `engine="exact"` searches exactly
        whatever the folder's engine."""
        if not queries:
            raise ValueError("no queries to search for")
        ids, scores = self.index.search(self.encoder.encode_query(list(queries)), k, engine=engine)
        return scores, ids
