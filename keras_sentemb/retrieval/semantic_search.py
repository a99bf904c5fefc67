"""Exact float top-k search by cosine similarity (dot product of unit vectors)."""

from __future__ import annotations

import numpy as np

from keras_sentemb.utils.argument_checks import finite_rows, positive_int
from keras_sentemb.utils.unit_vectors import unit_rows


def semantic_search(
    query_embeddings: np.ndarray, corpus_embeddings: np.ndarray, top_k: int = 5, chunk_size: int = 4096
) -> tuple[np.ndarray, np.ndarray]:
    """The `top_k` corpus rows most similar to each query, best first.

    score(q, c) = q·c / (‖q‖ ‖c‖) (cosine similarity). The corpus is scanned in chunks
    of `chunk_size` rows, so memory stays O(queries × (chunk_size + top_k)).

    Args:
        query_embeddings: float array [Q, d] (or [d] for one query).
        corpus_embeddings: float array [N, d].
        top_k: results per query (capped at N).

    Returns:
        `(indices, scores)`: int64 and float32 arrays [Q, min(top_k, N)], sorted by
        descending score (ties: lower index first).

    Example:
    >>> idx, score = semantic_search(np.eye(3)[:1], np.eye(3), top_k=2)
    >>> idx.tolist(), score.round(3).tolist()
    ([[0, 1]], [[1.0, 0.0]])
    """
    queries = np.atleast_2d(np.asarray(query_embeddings, dtype=np.float32))
    corpus = np.asarray(corpus_embeddings, dtype=np.float32)
    if corpus.ndim != 2 or queries.shape[1] != corpus.shape[1]:
        raise ValueError(f"query shape {queries.shape} and corpus shape {corpus.shape} do not match")
    top_k = positive_int(top_k, "top_k")
    finite_rows(queries, "query_embeddings")
    queries = unit_rows(queries)
    k = min(top_k, corpus.shape[0])
    best_idx = np.zeros((queries.shape[0], 0), dtype=np.int64)
    best_score = np.zeros((queries.shape[0], 0), dtype=np.float32)
    for start in range(0, corpus.shape[0], chunk_size):
        # checked block by block, like the scoring: a memory-mapped corpus is never read whole
        chunk = unit_rows(finite_rows(corpus[start : start + chunk_size], "corpus_embeddings", first_row=start))
        scores = np.concatenate([best_score, queries @ chunk.T], axis=1)
        indices = np.concatenate(
            [best_idx, np.broadcast_to(np.arange(start, start + len(chunk)), scores[:, -len(chunk) :].shape)],
            axis=1,
        )
        # Sort by (-score, index) so that ties keep the lower corpus index.
        order = np.lexsort((indices, -scores), axis=1)[:, :k]
        best_idx = np.take_along_axis(indices, order, axis=1)
        best_score = np.take_along_axis(scores, order, axis=1)
    return best_idx, best_score
