"""A multi-vector index folder: a MultiVectorEncoder (ColBERT), the corpus and its lines' token vectors, on disk.

`build_multi_vector_index_folder(corpus, folder, model=...)` writes, atomically (`model_index_folder`: a temporary
folder renamed into place, marked as an index folder so that `--overwrite` replaces only such a folder):

    folder/multi_vector_encoder.keras   the MultiVectorEncoder (both sides: queries need it)
    folder/multi_vector/                the `MultiVectorIndex` of the lines' `encode_document` token vectors
    folder/corpus.txt                   the corpus lines, so hits can be printed
    folder/meta.json                    kind "multi-vector", engine, sizes, the sha256 of the corpus and the model

`MultiVectorIndexFolder(folder).search(queries, k)` encodes the queries (`encode_query`: marker, expansion) and
searches the index by MaxSim; every file is checked against meta.json first. This is what
`keras-sentemb index build --kind multi-vector` and `index search` on such a folder run.

Example:
(Not run as a doctest: it builds a model from a folder; tests/apps/test_multi_vector_index_command.py runs the same.)
    build_multi_vector_index_folder(lines, "corpus_colbert", model="models/colbert")
    MultiVectorIndexFolder("corpus_colbert").search(["How do I bake bread?"], k=5)
"""

import os

from keras_sentemb.apps.index_folder import INDEX_KIND
from keras_sentemb.apps.model_index_folder import (
    ModelIndexKind,
    checked_corpus,
    is_model_index_folder,
    load_model,
    open_model_index_folder,
    write_model_index_folder,
)
from keras_sentemb.models.multi_vector_encoder import MultiVectorEncoder
from keras_sentemb.retrieval.lexical_index import texts_sha256
from keras_sentemb.retrieval.multi_vector_index import ENGINES, MultiVectorIndex
from keras_sentemb.utils.output_targets import check_output_folder

MULTI_VECTOR_KIND = "multi-vector"
KIND = ModelIndexKind(
    kind=MULTI_VECTOR_KIND,
    model_file="multi_vector_encoder.keras",
    model_class=MultiVectorEncoder,
    subfolder="multi_vector",
    engines=ENGINES,
    width_key="dim",
    what="a multi-vector index folder",
)


def is_multi_vector_index_folder(folder):
    """Whether `folder`'s meta.json says kind "multi-vector" (a folder of `build_multi_vector_index_folder`)."""
    return is_model_index_folder(folder, KIND)


def load_multi_vector_encoder(spec):
    """A `MultiVectorEncoder` from a sentence-transformers MultiVectorEncoder / PyLate folder or a `.keras` file."""
    return load_model(spec, KIND)


def build_multi_vector_index_folder(
    corpus, folder, model, engine="faiss", overwrite=False, progress=None, inputs=(), batch_size=32
):
    """Encodes `corpus` (a list of lines) with a `MultiVectorEncoder` (`model`: one, a folder, or a `.keras` file
    holding one) and writes a multi-vector index folder (the module docstring); returns its path. `engine`: "faiss"
    (FAISS' token index names the candidates) or "exact". Everything is checked (the corpus, the output folder, the
    model) before anything is encoded or written; a blank line is refused (its only vectors would be the special
    tokens')."""
    if engine not in ENGINES:
        raise ValueError(f"engine must be one of {ENGINES}, got {engine!r}")
    checked_corpus(corpus, KIND)
    blank = next((number for number, line in enumerate(corpus, start=1) if not line.strip()), None)
    if blank is not None:
        raise ValueError(
            f"corpus line {blank} is empty: a multi-vector document is its tokens' vectors, and an empty line would "
            "match every query by its special tokens alone; remove the blank lines"
        )
    folder = os.fspath(folder)
    inputs = [*inputs, *([model] if isinstance(model, (str, os.PathLike)) else [])]
    check_output_folder(folder, INDEX_KIND, overwrite, inputs)
    encoder = model if isinstance(model, MultiVectorEncoder) else load_multi_vector_encoder(model)
    vectors = encoder.encode_document(corpus, batch_size=batch_size, progress=progress)
    index = MultiVectorIndex(
        vectors,
        engine=engine,
        length_normalize=encoder.similarity_fn_name == "meanmaxsim",
        documents_sha256=texts_sha256(corpus),
    )
    return write_model_index_folder(
        KIND, folder, corpus, encoder, index, engine, encoder.embedding_dim, overwrite, inputs
    )


class MultiVectorIndexFolder:
    """A folder of `build_multi_vector_index_folder`, opened for searching: meta.json, the corpus (size and sha256),
    the index (its files' sha256 and its documents' texts) and the model file (sha256) are checked; anything else is
    one `ValueError` naming the file."""

    def __init__(self, folder):
        self.folder, self.meta, self.corpus, model_path = open_model_index_folder(folder, KIND)
        subfolder = os.path.join(self.folder, KIND.subfolder)
        self.index = MultiVectorIndex.load(subfolder, texts_sha256(self.corpus))
        if (len(self.index), self.index.dim) != (self.meta["lines"], self.meta["dim"]):
            raise ValueError(f"{subfolder}: {len(self.index)} documents of {self.index.dim}, not meta.json's sizes")
        self.encoder = load_multi_vector_encoder(model_path)
        if self.encoder.embedding_dim != self.index.dim:
            raise ValueError(
                f"{model_path}: {self.encoder.embedding_dim}-d token vectors, the index holds {self.index.dim}"
            )

    def search(self, queries, k=5, engine=None):
        """`(scores, ids)` [Q, k'] with k' = min(k, corpus lines): MaxSim, best first; ids index the corpus (−1 past
        the candidates FAISS found). `engine="exact"` scores every line whatever the folder's engine."""
        if not queries:
            raise ValueError("no queries to search for")
        ids, scores = self.index.search(self.encoder.encode_query(list(queries)), k, engine=engine)
        return scores, ids
