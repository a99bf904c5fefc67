"""The anchor of benchmarks/sparse_query_export.py: sentence-transformers' `SparseEncoder.encode_query` of an
inference-free folder, one query a call, timed in this process (`make anchor-venv`, offline):

    python sparse_query_anchor.py --folder F --queries Q.json --output O.npy

Prints one JSON line: each call's milliseconds; writes the queries' dense vectors to `O.npy`.
"""

import argparse
import json
import time

import numpy as np


def main():
    from sentence_transformers import SparseEncoder

    parser = argparse.ArgumentParser()
    parser.add_argument("--folder", required=True)
    parser.add_argument("--queries", required=True)
    parser.add_argument("--output", required=True)
    args = parser.parse_args()
    with open(args.queries, encoding="utf-8") as f:
        queries = json.load(f)
    model = SparseEncoder(args.folder, device="cpu")
    model.encode_query(queries[:8])  # warm-up
    milliseconds, rows = [], []
    for query in queries:
        start = time.perf_counter()
        vector = model.encode_query([query], convert_to_tensor=True)
        milliseconds.append(1000 * (time.perf_counter() - start))
        rows.append(vector.to_dense().float().numpy()[0])
    np.save(args.output, np.stack(rows))
    print(json.dumps({"milliseconds": milliseconds}))


if __name__ == "__main__":
    main()
