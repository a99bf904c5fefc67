"""Sparse vectors as `scipy.sparse` rows: the sink that keeps `SparseEncoder`'s batches sparse, the top-k pruning
of `max_active_dims`, `decode`'s (token, weight) lists and the server's (index, value) lists. NumPy and SciPy
only: the server of an exported folder reads it without TensorFlow."""

import numpy as np
import scipy.sparse


def keep_largest(values, max_active_dims):
    """`values` [rows, width] with all but the `max_active_dims` largest |values| of each row set to 0
    (sentence-transformers' `select_max_active_dims`); `values` itself when None.

    >>> keep_largest(np.array([[0.5, 2.0, 1.0]], "float32"), 2).tolist()
    [[0.0, 2.0, 1.0]]
    """
    if max_active_dims is None or max_active_dims >= values.shape[1]:
        return values
    kept = np.argpartition(-np.abs(values), max_active_dims - 1, axis=1)[:, :max_active_dims]
    pruned = np.zeros_like(values)
    np.put_along_axis(pruned, kept, np.take_along_axis(values, kept, axis=1), axis=1)
    return pruned


class SparseRows:
    """A `run_batched_rows` sink: each batch [rows, vocabulary] pruned (`keep_largest`) and kept as CSR at once,
    so that N texts never hold N × vocabulary floats; `result()` is float32 CSR [N, vocabulary] in input order."""

    def __init__(self, count, width, max_active_dims=None):
        self.count, self.width, self.max_active_dims = count, width, max_active_dims
        self.indices, self.parts = [], []

    def put(self, indices, values):
        self.indices.append(np.asarray(indices, dtype=np.int64))
        part = scipy.sparse.csr_matrix(keep_largest(np.asarray(values, dtype=np.float32), self.max_active_dims))
        self.parts.append(part)

    def result(self):
        if not self.parts:
            return scipy.sparse.csr_matrix((self.count, self.width), dtype=np.float32)
        stacked = scipy.sparse.vstack(self.parts, format="csr", dtype=np.float32)
        order = np.empty(self.count, dtype=np.int64)
        order[np.concatenate(self.indices)] = np.arange(self.count)
        return stacked[order]


def decoded_rows(vectors, vocabulary, top_k=None):
    """[(token, weight), …] of each row of a CSR matrix, largest weight first (at most `top_k` of them).

    >>> decoded_rows(scipy.sparse.csr_matrix(np.array([[0.0, 2.0, 0.5]], "float32")), ["a", "b", "c"])
    [[('b', 2.0), ('c', 0.5)]]
    """
    rows = []
    for row in range(vectors.shape[0]):
        start, end = vectors.indptr[row], vectors.indptr[row + 1]
        ids, weights = vectors.indices[start:end], vectors.data[start:end]
        order = np.argsort(-weights, kind="stable")[:top_k]
        rows.append([(vocabulary[int(ids[i])] if ids[i] < len(vocabulary) else None, float(weights[i])) for i in order])
    return rows


def sparse_entries(weights, max_active_dims=None):
    """`[[{"index", "value"}, …], …]` of dense weights [N, vocabulary]: each row's entries > 0, largest first, at most
    `max_active_dims` (text-embeddings-inference's `/embed_sparse` answer).

    >>> sparse_entries(np.array([[0.0, 2.0, 0.5]], "float32"))
    [[{'index': 1, 'value': 2.0}, {'index': 2, 'value': 0.5}]]
    """
    rows = []
    for row in keep_largest(np.asarray(weights, dtype=np.float32), max_active_dims):
        ids = np.flatnonzero(row > 0)
        ids = ids[np.argsort(-row[ids], kind="stable")]
        rows.append([{"index": int(i), "value": float(row[i])} for i in ids])
    return rows


def csr_entries(vectors):
    """`sparse_entries` of a CSR matrix's rows (each row's stored entries, largest first).

    >>> csr_entries(scipy.sparse.csr_matrix(np.array([[0.0, 0.5, 2.0]], "float32")))
    [[{'index': 2, 'value': 2.0}, {'index': 1, 'value': 0.5}]]
    """
    rows = []
    for row in range(vectors.shape[0]):
        start, end = vectors.indptr[row], vectors.indptr[row + 1]
        order = np.argsort(-vectors.data[start:end], kind="stable")
        pairs = zip(vectors.indices[start:end][order], vectors.data[start:end][order])
        rows.append([{"index": int(i), "value": float(v)} for i, v in pairs])
    return rows
