"""Reciprocal-rank fusion and the convex combination fuse runs by their formulas, keep the top k,
and refuse what they cannot fuse; the choice on dev qrels takes the best candidate."""

import pytest

from keras_sentemb.evaluation.fusion_choice import choose_fusion, fusion_candidates
from keras_sentemb.retrieval.ranked_runs import ranked_ids, run_of
from keras_sentemb.retrieval.run_fusion import ConvexFusion, ReciprocalRankFusion

DENSE = {"q1": {"a": 0.9, "b": 0.5, "c": -0.2}, "q2": {"x": 0.3}}
LEXICAL = {"q1": {"c": 8.0, "d": 4.0, "b": 2.0}, "q3": {"y": 1.0}}


def test_reciprocal_rank_fusion_sums_one_over_k_plus_rank():
    fused = ReciprocalRankFusion(k=10).fuse([DENSE, LEXICAL])
    assert fused["q1"] == pytest.approx({"a": 1 / 11, "b": 1 / 12 + 1 / 13, "c": 1 / 13 + 1 / 11, "d": 1 / 12})
    assert fused["q2"] == pytest.approx({"x": 1 / 11}) and fused["q3"] == pytest.approx({"y": 1 / 11})


def test_convex_fusion_with_floors_normalises_by_the_lowest_possible_score():
    fused = ConvexFusion(weight=0.25, floors=(-1.0, 0.0)).fuse([DENSE, LEXICAL])
    dense = {d: (s + 1) / (0.9 + 1) for d, s in DENSE["q1"].items()}
    lexical = {d: s / 8.0 for d, s in LEXICAL["q1"].items()}
    expected = {d: 0.25 * dense.get(d, 0.0) + 0.75 * lexical.get(d, 0.0) for d in {*dense, *lexical}}
    assert fused["q1"] == pytest.approx(expected)


def test_convex_fusion_without_floors_is_min_max_per_query():
    fused = ConvexFusion(weight=0.5).fuse([DENSE, LEXICAL])
    dense = {d: (s + 0.2) / 1.1 for d, s in DENSE["q1"].items()}
    lexical = {d: (s - 2.0) / 6.0 for d, s in LEXICAL["q1"].items()}
    expected = {d: 0.5 * dense.get(d, 0.0) + 0.5 * lexical.get(d, 0.0) for d in {*dense, *lexical}}
    assert fused["q1"] == pytest.approx(expected)
    assert fused["q2"] == {"x": 0.5}  # one document: its run's best, normalised to 1


def test_weight_one_keeps_the_first_runs_order():
    fused = ConvexFusion(weight=1.0, floors=(-1.0, 0.0)).fuse([DENSE, LEXICAL])
    assert ranked_ids(fused["q1"])[:3] == ["a", "b", "c"]


def test_only_the_top_k_fused_documents_are_kept():
    fused = ReciprocalRankFusion().fuse([DENSE, LEXICAL], top_k=2)
    assert ranked_ids(fused["q1"]) == ["c", "b"]


@pytest.mark.parametrize(
    "make, words",
    [
        (lambda: ReciprocalRankFusion(k=0), "k must be a positive number"),
        (lambda: ConvexFusion(weight=1.5), r"weight must be a number in \[0, 1\]"),
        (lambda: ConvexFusion(floors=(0.0,)), "floors must be two finite numbers"),
        (lambda: ConvexFusion(floors=(float("nan"), 0.0)), "floors must be two finite numbers"),
        (lambda: ReciprocalRankFusion().fuse([DENSE]), "two or more runs"),
        (lambda: ConvexFusion().fuse([DENSE, LEXICAL, LEXICAL]), "combines two runs"),
        (lambda: ConvexFusion(floors=(1.0, 0.0)).fuse([DENSE, LEXICAL]), "below its floor"),
    ],
)
def test_what_cannot_be_fused_is_refused(make, words):
    with pytest.raises(ValueError, match=words):
        make()


def test_a_run_of_a_search_skips_the_padding_and_keeps_queries_without_hits():
    run = run_of(["q1", "q2"], ["a", "b", "c"], [[2, 0, -1], [-1, -1, -1]], [[3.0, 1.0, 0.0], [0.0, 0.0, 0.0]])
    assert run == {"q1": {"c": 3.0, "a": 1.0}, "q2": {}}


def test_the_choice_on_dev_is_the_candidate_that_scores_best_there():
    qrels = {"q1": {"a": 1}}
    best, scores = choose_fusion([DENSE, LEXICAL], qrels, fusion_candidates(floors=(-1.0, 0.0)))
    assert len(scores) == 10 and str(best) in scores
    assert scores[str(best)] == max(scores.values())
    # "a" tops "c" when w · 1 > w · 0.8 / 1.9 + (1 − w), i.e. w > 0.633: the first such weight is 0.7
    assert str(best) == "convex(weight=0.7, floors -1, 0)"
