"""best_chunk_search scores a document by its best chunk and returns documents, best first."""

import numpy as np
import pytest

from keras_sentemb.retrieval.best_chunk_search import best_chunk_search


def test_equals_the_brute_force_max_over_each_documents_chunks():
    rng = np.random.default_rng(0)
    chunk_counts = rng.integers(1, 5, size=40)
    documents = np.repeat(np.arange(40), chunk_counts)
    chunks = rng.normal(size=(len(documents), 8)).astype(np.float32)
    queries = rng.normal(size=(7, 8)).astype(np.float32)
    indices, scores = best_chunk_search(queries, chunks, documents, top_k=5, query_block=3)
    unit = chunks / np.linalg.norm(chunks, axis=1, keepdims=True)
    for q, query in enumerate(queries / np.linalg.norm(queries, axis=1, keepdims=True)):
        cosine = unit @ query
        best = np.array([cosine[documents == d].max() for d in range(40)])
        expected = np.argsort(-best, kind="stable")[:5]
        np.testing.assert_array_equal(indices[q], expected)
        np.testing.assert_allclose(scores[q], best[expected], rtol=1e-5)


def test_top_k_is_capped_at_the_number_of_documents_and_bad_maps_refused():
    indices, _ = best_chunk_search([[1.0, 0.0]], [[1.0, 0.0], [0.0, 1.0]], [0, 1], top_k=10)
    assert indices.tolist() == [[0, 1]]
    with pytest.raises(ValueError, match="must run 0, 1"):
        best_chunk_search([[1.0, 0.0]], [[1.0, 0.0], [0.0, 1.0]], [1, 0])
    with pytest.raises(ValueError, match="do not match"):
        best_chunk_search([[1.0, 0.0]], [[1.0, 0.0]], [0, 0])
