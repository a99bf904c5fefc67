"""The quantised-retrieval anchor: sentence-transformers' own scheme on the same vectors.

Runs in the throwaway interpreter with PyTorch (`make anchor-venv`: sentence-transformers, faiss-cpu).
Reads float32 corpus and query vectors (.npy), prints one JSON line with the top-k ids of
  - "st_binary_rescore_float_x_binary": `semantic_search_faiss(..., corpus_precision="ubinary",
    rescore=True, rescore_multiplier=4)` (its built-in rescoring: the float query against the
    stored binary vectors);
  - "st_binary_rescore_int8": the embedding-quantization write-up's pipeline: `quantize_embeddings(...,
    "ubinary")` codes searched exactly (FAISS `IndexBinaryFlat`), the top k·4 rescored by the float
    query against `quantize_embeddings(..., "int8")` corpus vectors (ranges calibrated on the corpus).

    python quantized_search_anchor.py --corpus corpus.npy --queries queries.npy --k 10 --multiplier 4
"""

import argparse
import json
import time

import faiss
import numpy as np
from sentence_transformers.util.quantization import quantize_embeddings, semantic_search_faiss


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--corpus", required=True)
    parser.add_argument("--queries", required=True)
    parser.add_argument("--k", type=int, default=10)
    parser.add_argument("--multiplier", type=int, default=4)
    args = parser.parse_args()
    corpus, queries = np.load(args.corpus), np.load(args.queries)
    result = {}

    start = time.perf_counter()
    results = semantic_search_faiss(
        queries,
        corpus_embeddings=quantize_embeddings(corpus, precision="ubinary"),
        corpus_precision="ubinary",
        top_k=args.k,
        rescore=True,
        rescore_multiplier=args.multiplier,
        exact=True,
    )[0]
    result["st_binary_rescore_float_x_binary"] = [[hit["corpus_id"] for hit in row] for row in results]
    result["st_binary_rescore_float_x_binary_s"] = time.perf_counter() - start

    start = time.perf_counter()
    binary_corpus = quantize_embeddings(corpus, precision="ubinary")
    index = faiss.IndexBinaryFlat(binary_corpus.shape[1] * 8)
    index.add(binary_corpus)
    int8_corpus = quantize_embeddings(corpus, precision="int8", calibration_embeddings=corpus)
    _, candidates = index.search(quantize_embeddings(queries, precision="ubinary"), args.k * args.multiplier)
    scores = np.einsum("qd,qcd->qc", queries, int8_corpus[candidates].astype(np.float32))
    order = np.argsort(-scores, axis=1, kind="stable")[:, : args.k]
    result["st_binary_rescore_int8"] = np.take_along_axis(candidates, order, axis=1).tolist()
    result["st_binary_rescore_int8_s"] = time.perf_counter() - start
    result["int8_bytes_per_vector"] = int(int8_corpus.shape[1])
    result["ubinary_bytes_per_vector"] = int(binary_corpus.shape[1])
    print(json.dumps(result))


if __name__ == "__main__":
    main()
