"""Ranking measures over graded judgements, as trec_eval (and so `pytrec_eval`, BEIR and MTEB)
computes them.

A run is {query id: {document id: score}}; qrels are {query id: {document id: grade}}. Each query
of the qrels that the run answers is ranked by descending score, ties broken by descending
document id (trec_eval's order), and measured; a document is relevant when its grade is ≥ 1.
With r_i the grade of the document at rank i (0 when unjudged) and R the relevant documents:

    ndcg@k   = Σ_{i≤k} r_i / log2(i + 1)  ÷  the same sum over the judged grades sorted descending
    recall@k = |{i ≤ k : r_i ≥ 1}| / |R|
    map@k    = Σ_{i≤k, r_i≥1} precision@i / |R|
    mrr@k    = 1 / (rank of the first relevant document), 0 when none is in the top k

(trec_eval's `ndcg_cut.k`, `recall.k`, `map_cut.k`, and `recip_rank` over the run cut to k, which
is MTEB's MRR@k.) tests/evaluation/test_trec_measures.py checks every measure against `pytrec_eval`.

>>> run = {"q": {"a": 0.9, "b": 0.8, "c": 0.7}}
>>> qrels = {"q": {"b": 2, "c": 1, "d": 1}}
>>> scores = trec_measures(run, qrels, ("ndcg@10", "recall@2", "mrr@10", "map@100"))["q"]
>>> {name: round(value, 4) for name, value in scores.items()}
{'ndcg@10': 0.5627, 'recall@2': 0.3333, 'mrr@10': 0.5, 'map@100': 0.3889}
"""

import math

from keras_sentemb.retrieval.ranked_runs import ranked_ids

MEASURES = ("ndcg", "recall", "map", "mrr")


def parse_measure(name):
    """("ndcg", 10) for "ndcg@10"; `ValueError` for anything else."""
    kind, _, cutoff = str(name).partition("@")
    if kind not in MEASURES or not cutoff.isdigit() or int(cutoff) < 1:
        raise ValueError(f"a measure is one of {MEASURES} with a cutoff, such as 'ndcg@10', got {name!r}")
    return kind, int(cutoff)


def _measure(kind, cutoff, grades, judged):
    """One measure of one query: `grades` of the ranked documents, `judged` all its grades."""
    relevant = sum(1 for grade in judged if grade >= 1)
    top = grades[:cutoff]
    if kind == "ndcg":
        ideal = sorted((grade for grade in judged if grade > 0), reverse=True)[:cutoff]
        best = sum(grade / math.log2(rank + 1) for rank, grade in enumerate(ideal, start=1))
        gained = sum(grade / math.log2(rank + 1) for rank, grade in enumerate(top, start=1) if grade > 0)
        return gained / best if best else 0.0
    if kind == "recall":
        return sum(1 for grade in top if grade >= 1) / relevant if relevant else 0.0
    if kind == "map":
        hits, total = 0, 0.0
        for rank, grade in enumerate(top, start=1):
            if grade >= 1:
                hits += 1
                total += hits / rank
        return total / relevant if relevant else 0.0
    return next((1.0 / rank for rank, grade in enumerate(top, start=1) if grade >= 1), 0.0)


def trec_measures(run, qrels, measures=("ndcg@10", "recall@100", "mrr@10", "map@100")):
    """{query id: {measure: value}} for each query of `qrels` that `run` answers (see the module
    docstring for the formulas); `measures` are names such as "ndcg@10"."""
    parsed = [(name, *parse_measure(name)) for name in measures]
    results = {}
    for query, judgements in qrels.items():
        if query not in run:
            continue
        grades = [judgements.get(document, 0) for document in ranked_ids(run[query])]
        judged = list(judgements.values())
        results[query] = {name: _measure(kind, cutoff, grades, judged) for name, kind, cutoff in parsed}
    return results


def mean_measures(per_query):
    """The mean over queries of each measure of `trec_measures`' result."""
    if not per_query:
        raise ValueError("no query was measured: the run answers none of the judged queries")
    names = next(iter(per_query.values()))
    return {name: sum(scores[name] for scores in per_query.values()) / len(per_query) for name in names}
