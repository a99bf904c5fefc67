"""A run: {query id: {document id: score}}, what a retrieval stage returns and trec_eval reads.

Its documents rank by descending score, ties by descending document id (trec_eval's order, which
`evaluation.trec_measures` and the fusions of `run_fusion` share).

>>> ranked_ids({"a": 0.5, "b": 0.9, "c": 0.5})
['b', 'c', 'a']
"""


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
