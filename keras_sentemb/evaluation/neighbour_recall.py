"""Recall of true nearest neighbours: how many of the exact top-k an approximate search finds."""

import numpy as np


def neighbour_recall(found_ids, true_ids):
    """Mean over queries of |found_i ∩ true_i| / |true_i|.

    `found_ids` [Q, k'] and `true_ids` [Q, k] are neighbour ids per query (k' may differ
    from k: recall@10 of a top-100 candidate list is `neighbour_recall(top100, true10)`).

    Example:
    >>> neighbour_recall(np.array([[1, 2, 3]]), np.array([[3, 4, 1]]))
    0.6666666666666666
    """
    found_ids = np.asarray(found_ids)
    true_ids = np.asarray(true_ids)
    if found_ids.ndim != 2 or true_ids.ndim != 2 or len(found_ids) != len(true_ids):
        raise ValueError(f"need [Q, k] arrays with the same Q, got {found_ids.shape} and {true_ids.shape}")
    if true_ids.shape[1] == 0:
        raise ValueError("true_ids has no neighbours per query")
    hits = [len(np.intersect1d(f, t)) / len(t) for f, t in zip(found_ids, true_ids)]
    return float(np.mean(hits))
