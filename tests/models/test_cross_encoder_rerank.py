"""CrossEncoder.rerank orders documents by their pair score with the query, as sentence-transformers'
`CrossEncoder.rank` returns them, and refuses what cannot be ranked."""

import numpy as np
import pytest

from tests.conftest import make_tiny_cross_encoder

DOCUMENTS = ["the cat sat on the mat", "a dog ran fast", "rain and storm", "hello world", "the cat ran"]


@pytest.fixture(scope="module")
def reranker():
    return make_tiny_cross_encoder(seed=3)


def test_documents_come_best_first_with_the_scores_of_predict_pairs(reranker):
    ranked = reranker.rerank("the cat", DOCUMENTS)
    scores = reranker.predict_pairs(["the cat"] * len(DOCUMENTS), DOCUMENTS)
    assert [hit["corpus_id"] for hit in ranked] == list(np.lexsort((np.arange(5), -scores)))
    assert [hit["score"] for hit in ranked] == pytest.approx(sorted(scores, reverse=True))
    assert set(ranked[0]) == {"corpus_id", "score"}


def test_top_k_and_the_texts_as_sentence_transformers_returns_them(reranker):
    ranked = reranker.rank("the cat", DOCUMENTS, top_k=2, return_documents=True)
    assert len(ranked) == 2 and ranked[0]["text"] == DOCUMENTS[ranked[0]["corpus_id"]]
    assert ranked == reranker.rerank("the cat", DOCUMENTS, return_documents=True)[:2]


@pytest.mark.parametrize(
    "query, top_k, words",
    [
        ("", None, "non-empty query"),
        ("   ", None, "non-empty query"),
        (3, None, "non-empty query"),
        ("cat", 0, "top_k"),
    ],
)
def test_what_cannot_be_ranked_is_refused(reranker, query, top_k, words):
    with pytest.raises(ValueError, match=words):
        reranker.rerank(query, DOCUMENTS, top_k=top_k)


def test_a_model_of_several_labels_is_no_reranker():
    with pytest.raises(ValueError, match="one label"):
        make_tiny_cross_encoder(num_labels=3).rerank("cat", DOCUMENTS)
