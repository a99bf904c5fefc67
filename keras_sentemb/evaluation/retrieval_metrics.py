"""Ranking metrics of retrieved ids against relevant ids: recall@k, MRR@k, nDCG@k."""

import numpy as np


def _check(ranked_ids, relevant, k):
    if not isinstance(k, int) or k < 1:
        raise ValueError(f"k must be a positive int, got {k!r}")
    if len(ranked_ids) != len(relevant):
        raise ValueError(f"{len(ranked_ids)} rankings for {len(relevant)} relevance sets")
    if len(ranked_ids) == 0:
        raise ValueError("retrieval metrics need at least one query")


def recall_at_k(ranked_ids, relevant, k):
    """Mean over queries of |top-k ∩ relevant| / |relevant| (queries with no relevant id
    are an error: their recall is undefined).

    >>> recall_at_k([[3, 1, 2]], [{1, 5}], k=2)
    0.5
    """
    _check(ranked_ids, relevant, k)
    values = []
    for index, (ranking, wanted) in enumerate(zip(ranked_ids, relevant)):
        wanted = set(wanted)
        if not wanted:
            raise ValueError(f"query {index} has no relevant id: recall is undefined")
        values.append(len(wanted.intersection(list(ranking)[:k])) / len(wanted))
    return float(np.mean(values))


def mrr_at_k(ranked_ids, relevant, k):
    """Mean reciprocal rank: mean over queries of 1 / (rank of the first relevant id in the
    top k), 0 when none is there.

    >>> mrr_at_k([[3, 1, 2], [7, 8, 9]], [{1}, {4}], k=3)
    0.25
    """
    _check(ranked_ids, relevant, k)
    values = []
    for ranking, wanted in zip(ranked_ids, relevant):
        wanted = set(wanted)
        ranks = [r for r, item in enumerate(list(ranking)[:k], start=1) if item in wanted]
        values.append(1.0 / ranks[0] if ranks else 0.0)
    return float(np.mean(values))


def ndcg_at_k(ranked_ids, relevant, k):
    """Normalised discounted cumulative gain with binary gains:
    DCG@k = Σ_{r ≤ k, id_r relevant} 1 / log2(r + 1), divided by the DCG of the ideal
    ranking (min(k, |relevant|) hits at the top); 0 for a query without relevant ids.

    >>> round(ndcg_at_k([[3, 1, 2]], [{1}], k=10), 4)   # a hit at rank 2: 1 / log2(3)
    0.6309
    """
    _check(ranked_ids, relevant, k)
    values = []
    for ranking, wanted in zip(ranked_ids, relevant):
        wanted = set(wanted)
        gains = [1.0 / np.log2(r + 1) for r, item in enumerate(list(ranking)[:k], start=1) if item in wanted]
        ideal = sum(1.0 / np.log2(r + 1) for r in range(1, min(k, len(wanted)) + 1))
        values.append(sum(gains) / ideal if ideal else 0.0)
    return float(np.mean(values))
