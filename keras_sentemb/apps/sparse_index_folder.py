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

import os

from keras_sentemb.apps.index_folder import INDEX_KIND
from keras_sentemb.apps.model_index_folder import (
    ModelIndexKind,
    checked_corpus,
    is_model_index_folder,
    load_model,
    open_model_index_folder,
    read_model_index_meta,
    write_model_index_folder,
)
from keras_sentemb.models.sparse_encoder import SparseEncoder
from keras_sentemb.retrieval.lexical_index import texts_sha256
from keras_sentemb.retrieval.sparse_index import ENGINES, SparseIndex
from keras_sentemb.utils.output_targets import check_output_folder

SPARSE_KIND = "sparse"
MODEL_FILE = "sparse_encoder.keras"
INDEX_SUBFOLDER = "sparse"
KIND = ModelIndexKind(
    kind=SPARSE_KIND,
    model_file=MODEL_FILE,
    model_class=SparseEncoder,
    subfolder=INDEX_SUBFOLDER,
    engines=ENGINES,
    width_key="vocabulary",
    what="a sparse index folder",
)
FILES = KIND.files


def is_sparse_index_folder(folder):
    """Whether `folder`'s meta.json says kind "sparse" (an index folder of `build_sparse_index_folder`)."""
    return is_model_index_folder(folder, KIND)


def build_sparse_index_folder(
    corpus, folder, model, engine="seismic", overwrite=False, progress=None, inputs=(), batch_size=32
):
    """Encodes `corpus` (a list of lines) with a `SparseEncoder` (`model`: one, a sentence-transformers
    SparseEncoder folder, or a `.keras` file holding one) and writes a sparse index folder (the module docstring);
    returns its path. `engine`: "seismic" (approximate, fast) or "exact". Everything is checked (the corpus, the
    output folder, the model) before anything is encoded or written."""
    if engine not in ENGINES:
        raise ValueError(f"engine must be one of {ENGINES}, got {engine!r}")
    checked_corpus(corpus, KIND)
    folder = os.fspath(folder)
    inputs = [*inputs, *([model] if isinstance(model, (str, os.PathLike)) else [])]
    check_output_folder(folder, INDEX_KIND, overwrite, inputs)
    encoder = model if isinstance(model, SparseEncoder) else load_sparse_encoder(model)
    vectors = encoder.encode_document(corpus, batch_size=batch_size, progress=progress)
    index = SparseIndex(vectors, engine=engine, documents_sha256=texts_sha256(corpus))
    return write_model_index_folder(
        KIND, folder, corpus, encoder, index, engine, encoder.embedding_dim, overwrite, inputs
    )


def load_sparse_encoder(spec):
    """A `SparseEncoder` from a sentence-transformers SparseEncoder folder or a `.keras` file holding one."""
    return load_model(spec, KIND)


def read_sparse_meta(folder):
    """The meta.json of a sparse index folder, each value checked: ValueError naming the key otherwise."""
    return read_model_index_meta(folder, KIND)


class SparseIndexFolder:
    """A folder of `build_sparse_index_folder`, opened for searching: meta.json, the corpus (size and sha256), the
    index (its files' sha256 and its documents' texts) and the model file (sha256) are checked; anything else is one
    `ValueError` naming the file."""

    def __init__(self, folder):
        self.folder, self.meta, self.corpus, model_path = open_model_index_folder(folder, KIND)
        self.index = SparseIndex.load(os.path.join(self.folder, INDEX_SUBFOLDER), texts_sha256(self.corpus))
        if self.index.vectors.shape != (self.meta["lines"], self.meta["vocabulary"]):
            raise ValueError(f"{self.folder}/{INDEX_SUBFOLDER}: {self.index.vectors.shape}, not meta.json's sizes")
        self.encoder = load_sparse_encoder(model_path)

    def search(self, queries, k=5, engine=None):
        """`(scores, ids)` [Q, k'] with k' = min(k, corpus lines): dot products, best first; ids index the corpus
        (−1 past the lines that share no vocabulary entry with the query). `engine="exact"` searches exactly
        whatever the folder's engine."""
        if not queries:
            raise ValueError("no queries to search for")
        ids, scores = self.index.search(self.encoder.encode_query(list(queries)), k, engine=engine)
        return scores, ids
