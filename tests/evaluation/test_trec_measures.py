"""trec_measures computes what trec_eval computes: every measure equals pytrec_eval's on random
graded runs with tied scores."""

import random

import pytest

from keras_sentemb.evaluation.trec_measures import mean_measures, parse_measure, trec_measures

pytrec_eval = pytest.importorskip("pytrec_eval")


def _random_collection(seed):
    rng = random.Random(seed)
    documents = [f"d{i}" for i in range(120)]
    qrels, run = {}, {}
    for q in range(40):
        query = f"q{q}"
        qrels[query] = {d: rng.choice([0, 1, 1, 2, 3]) for d in rng.sample(documents, rng.randint(1, 25))}
        run[query] = {d: round(rng.random(), 2) for d in rng.sample(documents, 100)}  # rounding: ties
    qrels["nothing relevant"] = {"d1": 0}
    run["nothing relevant"] = {"d1": 1.0}
    return run, qrels


@pytest.mark.parametrize("seed", [0, 1])
def test_every_measure_equals_pytrec_eval(seed):
    run, qrels = _random_collection(seed)
    ours = trec_measures(run, qrels, ("ndcg@10", "ndcg@3", "recall@100", "recall@5", "map@100", "mrr@10"))
    reference = pytrec_eval.RelevanceEvaluator(qrels, {"ndcg_cut.3,10", "recall.5,100", "map_cut.100"}).evaluate(run)
    # MTEB's MRR@10: trec_eval's recip_rank over the run cut to its best 10
    best_ten = {q: dict(sorted(s.items(), key=lambda i: (i[1], i[0]), reverse=True)[:10]) for q, s in run.items()}
    reciprocal = pytrec_eval.RelevanceEvaluator(qrels, {"recip_rank"}).evaluate(best_ten)
    assert set(ours) == set(reference)
    for query, values in ours.items():
        expected = reference[query]
        assert values["ndcg@10"] == pytest.approx(expected["ndcg_cut_10"], abs=1e-12)
        assert values["ndcg@3"] == pytest.approx(expected["ndcg_cut_3"], abs=1e-12)
        assert values["recall@100"] == pytest.approx(expected["recall_100"], abs=1e-12)
        assert values["recall@5"] == pytest.approx(expected["recall_5"], abs=1e-12)
        assert values["map@100"] == pytest.approx(expected["map_cut_100"], abs=1e-12)
        assert values["mrr@10"] == pytest.approx(reciprocal[query]["recip_rank"], abs=1e-12)


def test_ties_are_ranked_by_descending_document_id_as_trec_eval_does():
    # "b" and "a" tie; trec_eval ranks "b" first, so the relevant "a" is at rank 2
    assert trec_measures({"q": {"a": 0.5, "b": 0.5}}, {"q": {"a": 1}}, ["mrr@10"])["q"]["mrr@10"] == 0.5


def test_queries_the_run_does_not_answer_are_left_out_and_bad_names_refused():
    assert trec_measures({}, {"q": {"a": 1}}) == {}
    with pytest.raises(ValueError, match="answers none of the judged queries"):
        mean_measures({})
    with pytest.raises(ValueError, match="such as 'ndcg@10', got 'ndcg'"):
        parse_measure("ndcg")
