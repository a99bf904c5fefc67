"""MaxSim: late interaction's score of a query's token vectors against a document's."""

import numpy as np

# MaxSim holds [query tokens, document tokens] scores for at most this many document tokens at once.
MAXSIM_CHUNK_TOKENS = 1 << 16


def maxsim(queries, documents, length_normalize=False):
    """Late-interaction scores float32 [queries, documents] (Khattab & Zaharia 2020):

        s(q, d) = Σ_i max_j q_i · d_j      (÷ |q| with `length_normalize`: MeanMaxSim)

    over the token rows q_i of a query and d_j of a document. `queries` / `documents`: lists of float32
    [tokens, dim] arrays (a document with no token is a ValueError: its maximum is undefined).

    >>> q = [np.array([[1.0, 0.0], [0.0, 1.0]], np.float32)]
    >>> d = [np.array([[1.0, 0.0]], np.float32), np.array([[0.6, 0.8], [0.0, 1.0]], np.float32)]
    >>> maxsim(q, d).round(3).tolist(), maxsim(q, d, length_normalize=True).round(3).tolist()
    ([[1.0, 1.6]], [[0.5, 0.8]])
    """
    queries, documents = [np.asarray(q, np.float32) for q in queries], [np.asarray(d, np.float32) for d in documents]
    empty = [i for i, d in enumerate(documents) if d.ndim != 2 or not len(d)]
    if empty:
        raise ValueError(f"document #{empty[0]} has no token vectors: MaxSim needs at least one")
    scores = np.zeros((len(queries), len(documents)), np.float32)
    if not queries or not documents:
        return scores
    start = 0
    while start < len(documents):  # documents in chunks of about MAXSIM_CHUNK_TOKENS tokens
        stop, tokens = start, 0
        while stop < len(documents) and (stop == start or tokens + len(documents[stop]) <= MAXSIM_CHUNK_TOKENS):
            tokens += len(documents[stop])
            stop += 1
        block = np.concatenate(documents[start:stop])
        offsets = np.cumsum([0] + [len(d) for d in documents[start : stop - 1]])
        for row, query in enumerate(queries):
            best = np.maximum.reduceat(query @ block.T, offsets, axis=1)  # [query tokens, documents of the chunk]
            scores[row, start:stop] = best.sum(axis=0) / (len(query) if length_normalize else 1)
        start = stop
    return scores
