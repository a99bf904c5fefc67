"""A run: {query id: {document id: score}}, what a retrieval stage returns and trec_eval reads.

Its documents rank by descending score, ties by descending document id (trec_eval's order, which
`evaluation.trec_measures` and the fusions of `run_fusion` share). A stage that orders documents
without comparable scores (a Hamming search, a reranker's re-ordering) scores them by rank
(`rank_scored`), so that this order is exactly its own.

>>> ranked_ids({"a": 0.5, "b": 0.9, "c": 0.5})
['b', 'c', 'a']
"""

import numpy as np


def ranked_ids(scores):
    """Document ids of {document id: score} by descending score, ties by descending id."""
    return [document for document, _ in sorted(scores.items(), key=lambda item: (item[1], item[0]), reverse=True)]


def top_of(scores, top_k):
    """The `top_k` best of {document id: score}, as a dict in rank order."""
    return {document: scores[document] for document in ranked_ids(scores)[:top_k]}


def run_of(query_ids, document_ids, ids, scores):
    """The run of a search's `(ids, scores)` rows [Q, k] (row i answers `query_ids[i]`; a column
    id indexes `document_ids`, -1 for no hit). Every query is in it, one without hits as {}."""
    return {
        query: {document_ids[i]: float(s) for i, s in zip(row_ids, row_scores) if i >= 0}
        for query, row_ids, row_scores in zip(query_ids, ids, scores)
    }


def rank_scored(documents):
    """{document id: −rank} of documents in rank order (the first 0, the next −1, …): a run's scores
    that keep exactly this order.

    >>> rank_scored(["b", "a"])
    {'b': -0.0, 'a': -1.0}
    """
    return {document: -float(rank) for rank, document in enumerate(documents)}


def reranker_scores(reranker, first, second, batch_size=64, progress=None):
    """`reranker.predict_pairs(first, second)` as float64 [N], one score a pair; `ValueError` for a
    reranker that gives several (a cross-encoder of several labels)."""
    scores = np.asarray(reranker.predict_pairs(first, second, batch_size=batch_size, progress=progress), np.float64)
    if scores.shape != (len(first),):
        raise ValueError(f"the reranker must give one score a pair, it gave shape {scores.shape}")
    return scores


def best_positive(document_scores, k):
    """(ids int64 [k], scores float32 [k]) of the k highest scores above 0, best first, ties by lower id, padded with
    (−1, 0): a search where only documents that share a term with the query are hits (BM25, sparse vectors).

    >>> ids, scores = best_positive(np.array([0.0, 2.0, 1.0, 2.0]), 4)
    >>> ids.tolist(), scores.tolist()
    ([1, 3, 2, -1], [2.0, 2.0, 1.0, 0.0])
    """
    ids = np.full(k, -1, np.int64)
    scores = np.zeros(k, np.float32)
    matched = np.flatnonzero(document_scores > 0)
    if len(matched) > k:  # the k best (a tie at the k-th score: lower ids first), then sorted
        kth = np.partition(document_scores[matched], len(matched) - k)[len(matched) - k]
        matched = matched[document_scores[matched] >= kth]
    order = np.lexsort((matched, -document_scores[matched]))[:k]
    ids[: len(order)] = matched[order]
    scores[: len(order)] = document_scores[matched[order]]
    return ids, scores
