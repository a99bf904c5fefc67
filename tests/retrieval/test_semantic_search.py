"""Float semantic search: exact cosine top-k, chunked, ties broken by index."""

import numpy as np
import pytest

from keras_sentemb.retrieval import semantic_search


def test_matches_a_brute_force_argsort_across_chunks():
    rng = np.random.default_rng(0)
    corpus = rng.normal(size=(1000, 8)).astype("float32")
    queries = rng.normal(size=(5, 8)).astype("float32")
    indices, scores = semantic_search(queries, corpus, top_k=7, chunk_size=64)
    unit = corpus / np.linalg.norm(corpus, axis=1, keepdims=True)
    cos = (queries / np.linalg.norm(queries, axis=1, keepdims=True)) @ unit.T
    np.testing.assert_array_equal(indices, np.argsort(-cos, axis=1)[:, :7])
    np.testing.assert_allclose(scores, np.sort(cos, axis=1)[:, ::-1][:, :7], rtol=1e-5)


def test_top_k_is_capped_by_the_corpus_and_ties_keep_lower_index():
    indices, scores = semantic_search(np.ones(2), np.ones((3, 2)), top_k=10, chunk_size=2)
    assert indices.tolist() == [[0, 1, 2]]
    np.testing.assert_allclose(scores, [[1.0, 1.0, 1.0]], rtol=1e-6)


def test_rejects_mismatched_dimensions_and_bad_k():
    with pytest.raises(ValueError, match="do not match"):
        semantic_search(np.ones((1, 3)), np.ones((4, 2)))
    with pytest.raises(ValueError, match="top_k"):
        semantic_search(np.ones((1, 2)), np.ones((4, 2)), top_k=0)
