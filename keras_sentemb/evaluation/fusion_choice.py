"""Choosing how to fuse a dense and a lexical run: on dev qrels, by a ranking measure.

The candidates are reciprocal-rank fusion (k = 60) and the convex combination at dense weights
0.1, 0.2, …, 0.9 (`retrieval.run_fusion`). `choose_fusion` fuses the dev runs each way, measures
each fused run on the dev qrels and returns the best: a fusion chosen on the split it is then
measured on would overstate it, so `evaluate_beir` chooses on its `fusion_split` ("dev"), never
on the split it reports.

Example:
>>> dense = {"q1": {"a": 0.9, "b": 0.2}, "q2": {"c": 0.8, "d": 0.7}}
>>> lexical = {"q1": {"b": 9.0, "a": 1.0}, "q2": {"d": 3.0}}
>>> best, scores = choose_fusion([dense, lexical], {"q1": {"a": 1}, "q2": {"c": 1}})
>>> str(best), round(scores[str(best)], 1)
('convex(weight=0.6, min-max)', 100.0)
"""

from keras_sentemb.evaluation.trec_measures import mean_measures, trec_measures
from keras_sentemb.retrieval.run_fusion import ConvexFusion, ReciprocalRankFusion

CONVEX_WEIGHTS = tuple(w / 10 for w in range(1, 10))


def fusion_candidates(floors=None):
    """Reciprocal-rank fusion (k = 60), then the convex combination at each of `CONVEX_WEIGHTS`
    (the first run's weight; `floors` the runs' lowest possible scores, None for min-max)."""
    return [ReciprocalRankFusion()] + [ConvexFusion(weight=w, floors=floors) for w in CONVEX_WEIGHTS]


def choose_fusion(runs, qrels, candidates=None, measure="ndcg@10", top_k=1000):
    """`(best candidate, {str(candidate): mean measure × 100})`: the candidate whose fusion of
    `runs` scores best on `qrels` by `measure`, the earlier one on a tie."""
    candidates = list(candidates) if candidates is not None else fusion_candidates()
    if not candidates:
        raise ValueError("no fusion candidates to choose from")
    scores = {}
    for candidate in candidates:
        per_query = trec_measures(candidate.fuse(runs, top_k), qrels, (measure,))
        scores[str(candidate)] = 100.0 * mean_measures(per_query)[measure]
    return max(candidates, key=lambda candidate: scores[str(candidate)]), scores
