"""Retrieval with a hashed model's binary codes, as index folders search: Hamming top-k through
`BinaryIndex`, optionally rescored by cosine with the float vectors or their int8 rows.

For a `CodeSearch(bits=b, rescore=r, candidates=c)` and a `HashedEncoder` h:

    code(x)        = the first b bits of h's code of x's unit vector (a nested code's prefix; the whole
                     code without `bits`)
    no rescoring:  the documents in order of d_H(code(q), code(D)) (ties: the lower document first),
                   scored by rank (the run keeps BinaryIndex's order exactly);
    rescore r:     the c nearest documents by Hamming distance, re-ranked by cos(q, v_D) with v_D the
                   float vector ("float") or its int8 row (`Int8Vectors`, "int8").

A document kept as chunks (`Chunking(pooling=None)`) is a document's best chunk: its nearest chunk
code, and with rescoring the best cosine among its chunks that the Hamming search found.
`bytes_per_document` is what an index holds a document: its chunks' codes, plus their rescoring rows.

Example:
(Not run as a doctest: it loads the zoo's hashed model; tests/evaluation/test_code_retrieval.py runs
the same calls on a tiny one.)
    hashed = keras_sentemb.zoo.load("minilm-l6-hash512-nested")
    result = evaluate_beir(hashed, "data/beir/nfcorpus", codes=[CodeSearch(64), CodeSearch(512, "float")])
    result.stages["codes 64"], result.stages["codes 512 + float@100"], result.stages["dense"]
"""

import dataclasses

import numpy as np

from keras_sentemb.chunking.chunked_embeddings import ChunkedEmbeddings
from keras_sentemb.retrieval.best_chunk_search import first_hit_positions
from keras_sentemb.retrieval.binary_index import BinaryIndex
from keras_sentemb.retrieval.int8_vectors import Int8Vectors
from keras_sentemb.retrieval.ranked_runs import rank_scored
from keras_sentemb.utils.argument_checks import positive_int
from keras_sentemb.utils.unit_vectors import unit_rows

RESCORING = (None, "float", "int8")


@dataclasses.dataclass(frozen=True)
class CodeSearch:
    """One way to retrieve with binary codes (the module docstring).

    Attributes:
        bits: the code's first this many bits (a nested code's prefix); None for the whole code.
        rescore: None, "float" or "int8": re-rank the Hamming candidates by cosine with those rows.
        candidates: the Hamming candidates (documents) that `rescore` re-ranks.
    """

    bits: int | None = None
    rescore: str | None = None
    candidates: int = 100

    def __post_init__(self):
        if self.bits is not None:
            positive_int(self.bits, "CodeSearch.bits")
        if self.rescore not in RESCORING:
            raise ValueError(f"CodeSearch.rescore must be one of {RESCORING}, got {self.rescore!r}")
        positive_int(self.candidates, "CodeSearch.candidates")

    def __str__(self):
        return f"codes {self.bits or 'all'}" + (f" + {self.rescore}@{self.candidates}" if self.rescore else "")


def _chunk_rows(document_vectors, documents):
    """(vectors [C, d] unit rows, each row's document [C]) of document vectors or chunks."""
    if isinstance(document_vectors, ChunkedEmbeddings):
        return unit_rows(np.asarray(document_vectors.vectors, np.float32)), np.asarray(document_vectors.document)
    return unit_rows(np.asarray(document_vectors, np.float32)), np.arange(documents)


def _documents_in_order(rows, row_documents, depth):
    """The first `depth` distinct documents of hit `rows` (best first), and the hits that belong to them."""
    documents = [int(row_documents[rows[p]]) for p in first_hit_positions(row_documents, rows, depth)]
    chosen = set(documents)
    return documents, [row for row in rows if row >= 0 and int(row_documents[row]) in chosen]


def code_run(collection, hashed, query_vectors, document_vectors, search, top_k=1000):
    """`(run, bytes_per_document)`: the run of `search` (a `CodeSearch`) with `hashed`'s codes of
    `query_vectors` [Q, d] and `document_vectors` ([D, d] or a `ChunkedEmbeddings`), in
    `collection.query_ids` / `document_ids` order."""
    if not hasattr(hashed, "hash_embeddings"):
        raise TypeError(f"code search needs a HashedEncoder (hash_embeddings), got {type(hashed).__name__}")
    bits = hashed.bits if search.bits is None else search.bits
    vectors, row_documents = _chunk_rows(document_vectors, len(collection.document_ids))
    index = BinaryIndex(bits)
    index.add(hashed.hash_embeddings(vectors, bits=bits))
    query_codes = hashed.hash_embeddings(np.asarray(query_vectors, np.float32), bits=bits)
    depth = min(top_k if search.rescore is None else search.candidates, len(collection.document_ids))
    rows_a_document = len(vectors) / len(collection.document_ids)
    rescoring = None
    if search.rescore == "float":
        rescoring = vectors
    elif search.rescore == "int8":
        rescoring = Int8Vectors.quantize(vectors)
    wanted = min(len(index), int(np.ceil(depth * rows_a_document)))
    queries = unit_rows(np.asarray(query_vectors, np.float32))
    run = {}
    for query_id, codes, query in zip(collection.query_ids, query_codes, queries):
        while True:  # chunks: search deeper until `depth` distinct documents are found, or every chunk
            _, rows = index.search(codes[None], wanted)
            documents, kept = _documents_in_order(rows[0], row_documents, depth)
            if len(documents) == depth or wanted == len(index):
                break
            wanted = min(len(index), wanted * 2)
        if rescoring is None:
            run[query_id] = rank_scored([collection.document_ids[d] for d in documents])
            continue
        scores = unit_rows(np.asarray(rescoring[np.asarray(kept)], np.float32)) @ query
        best = {}
        for row, score in zip(kept, scores):
            document = int(row_documents[row])
            best[document] = max(best.get(document, -np.inf), float(score))
        ranked = sorted(best.items(), key=lambda item: (-item[1], item[0]))[:top_k]
        run[query_id] = {collection.document_ids[d]: score for d, score in ranked}
    row_bytes = {None: 0, "float": 4 * vectors.shape[1], "int8": vectors.shape[1]}[search.rescore]
    return run, rows_a_document * (bits // 8 + row_bytes)
