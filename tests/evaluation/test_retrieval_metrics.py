"""recall@k, MRR@k and nDCG@k against values worked out by hand."""

import math

import pytest

from keras_sentemb.evaluation.retrieval_metrics import mrr_at_k, ndcg_at_k, recall_at_k

RANKINGS = [[4, 2, 9, 1], [5, 6, 7, 8]]
RELEVANT = [{2, 1}, {8}]


def test_recall_counts_the_relevant_ids_found_in_the_top_k():
    assert recall_at_k(RANKINGS, RELEVANT, k=2) == pytest.approx((1 / 2 + 0) / 2)
    assert recall_at_k(RANKINGS, RELEVANT, k=4) == pytest.approx(1.0)


def test_mrr_uses_the_first_relevant_rank():
    assert mrr_at_k(RANKINGS, RELEVANT, k=4) == pytest.approx((1 / 2 + 1 / 4) / 2)
    assert mrr_at_k(RANKINGS, RELEVANT, k=3) == pytest.approx((1 / 2 + 0) / 2)


def test_ndcg_divides_by_the_ideal_ranking():
    first = (1 / math.log2(3) + 1 / math.log2(5)) / (1 + 1 / math.log2(3))
    second = (1 / math.log2(5)) / 1
    assert ndcg_at_k(RANKINGS, RELEVANT, k=10) == pytest.approx((first + second) / 2)
    assert ndcg_at_k([[1, 2]], [{1, 2}], k=2) == pytest.approx(1.0)


def test_bad_input_is_refused():
    with pytest.raises(ValueError, match="k must be a positive int"):
        recall_at_k(RANKINGS, RELEVANT, k=0)
    with pytest.raises(ValueError, match="2 rankings for 1 relevance sets"):
        mrr_at_k(RANKINGS, RELEVANT[:1], k=1)
    with pytest.raises(ValueError, match="no relevant id"):
        recall_at_k([[1]], [set()], k=1)
