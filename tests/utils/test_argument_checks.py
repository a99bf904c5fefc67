"""Integer-like counts are accepted the same way everywhere; NaN/inf vectors are refused
before they can become all-zero codes or NaN-ranked results."""

import numpy as np
import pytest

from keras_sentemb.retrieval import BinaryIndex, semantic_search
from keras_sentemb.utils.argument_checks import finite_rows, positive_int


@pytest.mark.parametrize("value", [1, 7, np.int32(3), np.int64(5), np.uint8(2)])
def test_python_and_numpy_integers_are_counts(value):
    assert positive_int(value, "k") == int(value) and type(positive_int(value, "k")) is int


@pytest.mark.parametrize("value", [0, -1, 2.0, "3", True, None, np.float32(2)])
def test_anything_else_is_refused_with_the_argument_name(value):
    with pytest.raises(ValueError, match="top_k must be a positive int"):
        positive_int(value, "top_k")


def test_the_first_non_finite_row_is_named():
    vectors = np.ones((4, 3), np.float32)
    vectors[2, 1], vectors[3, 0] = np.inf, np.nan
    with pytest.raises(ValueError, match=r"corpus row 2 holds NaN or infinity \(2 of 4 rows\)"):
        finite_rows(vectors, "corpus")
    assert finite_rows(np.ones((2, 2)), "x").shape == (2, 2)


def test_search_functions_take_numpy_counts_and_refuse_nan_queries():
    corpus = np.eye(4, dtype=np.float32)
    ids, _ = semantic_search(corpus[:1], corpus, top_k=np.int64(2))
    assert ids.tolist() == [[0, 1]]
    with pytest.raises(ValueError, match="query_embeddings row 0"):
        semantic_search(np.full((1, 4), np.nan), corpus)
    poisoned = corpus.copy()
    poisoned[3, 0] = np.nan
    with pytest.raises(ValueError, match="corpus_embeddings row 3 holds NaN"):  # found in its block of 2
        semantic_search(corpus[:1], poisoned, chunk_size=2)
    index = BinaryIndex(bits=64)
    index.add(np.arange(24, dtype=np.uint8).reshape(3, 8))
    distances, _ = index.search(np.zeros((1, 8), np.uint8), k=np.int32(2))
    assert distances.shape == (1, 2)
    with pytest.raises(ValueError, match="query_embeddings row 0"):
        index.search_and_rerank(np.zeros((1, 8), np.uint8), np.full((1, 4), np.nan), np.ones((3, 4)), k=1)
