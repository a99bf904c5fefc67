"""Exact top-k search over documents kept as several chunk vectors: a document scores as its
best chunk (max-sim), the rule index folders of chunked documents use."""

from __future__ import annotations

import numpy as np

from keras_sentemb.utils.argument_checks import finite_rows, positive_int
from keras_sentemb.utils.unit_vectors import unit_rows


def best_chunk_search(query_embeddings, chunk_embeddings, chunk_documents, top_k=10, query_block=256):
    """The `top_k` documents most similar to each query, best first, where

        score(q, D) = max_{c ∈ chunks(D)} cos(q, c)

    Args:
        query_embeddings: float [Q, d] (or [d]).
        chunk_embeddings: float [C, d], the chunks of each document contiguous.
        chunk_documents: int [C], each chunk's document index, non-decreasing, documents
            0 … D−1 each with at least one chunk (`ChunkedEmbeddings.document`).
        top_k: results per query (capped at D).
        query_block: queries scored at once (memory O(query_block × C)).

    Returns:
        `(document indices, scores)`: int64 and float32 [Q, min(top_k, D)], by descending score
        (ties: lower index first).

    >>> chunks = np.array([[1.0, 0.0], [0.0, 1.0], [0.6, 0.8]])
    >>> best_chunk_search([[0.0, 1.0]], chunks, [0, 0, 1], top_k=2)[0].tolist()
    [[0, 1]]
    """
    queries = unit_rows(finite_rows(np.atleast_2d(np.asarray(query_embeddings, np.float32)), "query_embeddings"))
    chunks = unit_rows(finite_rows(np.asarray(chunk_embeddings, np.float32), "chunk_embeddings"))
    documents = np.asarray(chunk_documents, np.int64)
    top_k = positive_int(top_k, "top_k")
    if chunks.ndim != 2 or queries.shape[1] != chunks.shape[1] or len(documents) != len(chunks):
        raise ValueError(
            f"query shape {queries.shape}, chunk shape {chunks.shape} and {len(documents)} chunk documents do not match"
        )
    if not len(chunks):
        return np.zeros((len(queries), 0), np.int64), np.zeros((len(queries), 0), np.float32)
    firsts = np.flatnonzero(np.r_[True, documents[1:] != documents[:-1]])
    if np.any(np.diff(documents) < 0) or documents[0] != 0 or len(firsts) != documents[-1] + 1:
        raise ValueError("chunk_documents must run 0, 1, …, D−1 in order, every document with a chunk")
    k = min(top_k, len(firsts))
    best_idx = np.zeros((len(queries), k), np.int64)
    best_score = np.zeros((len(queries), k), np.float32)
    for start in range(0, len(queries), query_block):
        scores = np.maximum.reduceat(queries[start : start + query_block] @ chunks.T, firsts, axis=1)
        top = (
            np.argpartition(-scores, k - 1, axis=1)[:, :k]
            if k < scores.shape[1]
            else np.tile(np.arange(k), (len(scores), 1))
        )
        top_scores = np.take_along_axis(scores, top, axis=1)
        order = np.lexsort((top, -top_scores), axis=1)
        best_idx[start : start + query_block] = np.take_along_axis(top, order, axis=1)
        best_score[start : start + query_block] = np.take_along_axis(top_scores, order, axis=1)
    return best_idx, best_score


def first_hit_positions(chunk_documents, chunk_ids, k):
    """Positions in `chunk_ids` (a search's hits, best first; -1 skipped) of the first hit of each
    distinct document, at most `k`: each document's best chunk, in the search's order.

    >>> first_hit_positions([0, 0, 1, 2], [1, 0, -1, 3, 2], k=2)
    [0, 3]
    """
    seen, positions = set(), []
    for position, chunk in enumerate(chunk_ids):
        if chunk < 0:
            continue
        document = int(chunk_documents[chunk])
        if document not in seen:
            seen.add(document)
            positions.append(position)
            if len(positions) == k:
                break
    return positions
