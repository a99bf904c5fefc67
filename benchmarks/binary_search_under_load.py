"""Single-query Hamming search while another process computes: BinaryIndex's thread choice vs FAISS's default.

    python benchmarks/binary_search_under_load.py [--codes 1000000] [--bits 512] [--queries 300]

A search endpoint shares its CPU with the model. FAISS's binary indexes share a batch's queries
among OpenMP threads; with one query the other threads get nothing and spin, and when another
process wants the core they spin on, the query waits. BinaryIndex searches on one thread a query
(`approximate_binary_search.search_threads`). For a flat and an HNSW index over `--codes` random
`--bits`-bit codes, the p50 / p90 of `--queries` single-query searches (top 10), in three machine
states: quiet, one competing CPU-bound process (a busy Python loop), and two of them; each for
  FAISS's default (the index's own `search` on every OpenMP thread: the anchor),
  BinaryIndex (its thread choice; the same index, the same neighbours, checked).
Prints a table and one JSON line; the acceptance ratio is BinaryIndex's p50 under one competing
process over its p50 on the quiet machine.
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from benchmarks.common import cpu_flags, machine_description  # noqa: E402
from keras_sentemb.retrieval import BinaryIndex  # noqa: E402

BUSY_LOOP = "while True: pass"


def latencies_ms(search, queries):
    search(queries[:1])  # warm-up
    times = []
    for row in range(len(queries)):
        start = time.perf_counter()
        search(queries[row : row + 1])
        times.append((time.perf_counter() - start) * 1000)
    return times


def summary(times):
    ordered = sorted(times)
    return {"p50_ms": round(statistics.median(ordered), 3), "p90_ms": round(ordered[int(0.9 * len(ordered))], 3)}


class Competitors:
    """`count` busy Python processes for the duration of a `with` block."""

    def __init__(self, count):
        self.count, self.processes = count, []

    def __enter__(self):
        self.processes = [subprocess.Popen([sys.executable, "-c", BUSY_LOOP]) for _ in range(self.count)]
        time.sleep(1.0 if self.count else 0.0)
        return self

    def __exit__(self, *exc):
        for process in self.processes:
            process.kill()
            process.wait()


def measure_kind(kind, codes, queries, k):
    """{competing processes: {"faiss_default": latencies, "binary_index": latencies}} of one index kind."""
    start = time.perf_counter()
    index = BinaryIndex(codes.shape[1] * 8, kind=kind)
    index.add(codes)
    print(f"{kind}: {len(codes):,} codes of {codes.shape[1] * 8} bits indexed in {time.perf_counter() - start:.1f} s")
    faiss_index = index._faiss_index  # the anchor: the same FAISS index, searched as FAISS does by default
    _, ours = index.search(queries[:20], k)
    _, theirs = faiss_index.search(queries[:20], k)
    assert np.array_equal(ours, theirs), "BinaryIndex and FAISS found different neighbours"
    results = {}
    for load in (0, 1, 2):
        with Competitors(load):
            faiss_default = latencies_ms(lambda q: faiss_index.search(q, k), queries)
            binary_index = latencies_ms(lambda q: index.search(q, k), queries)
        results[load] = {"faiss_default": summary(faiss_default), "binary_index": summary(binary_index)}
        print(f"  {kind} with {load} competing process(es): {results[load]}", flush=True)
    return results


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--codes", type=int, default=1_000_000)
    parser.add_argument("--bits", type=int, default=512)
    parser.add_argument("--queries", type=int, default=300)
    parser.add_argument("--k", type=int, default=10)
    args = parser.parse_args(argv)
    import faiss

    threads = faiss.omp_get_max_threads()
    print(f"machine: {machine_description()}; CPU flags: {cpu_flags()}; faiss {faiss.__version__}, {threads} threads")
    rng = np.random.default_rng(0)
    codes = rng.integers(0, 256, (args.codes, args.bits // 8), dtype=np.uint8)
    queries = rng.integers(0, 256, (args.queries, args.bits // 8), dtype=np.uint8)
    results = {kind: measure_kind(kind, codes, queries, args.k) for kind in ("flat", "hnsw")}
    print()
    print(
        "| index | competing processes | FAISS default p50 / p90 ms | BinaryIndex p50 / p90 ms | BinaryIndex / FAISS |"
    )
    print("|---|---:|---:|---:|---:|")
    for kind, loads in results.items():
        for load, row in loads.items():
            theirs, ours = row["faiss_default"], row["binary_index"]
            print(
                f"| {kind} | {load} | {theirs['p50_ms']:.2f} / {theirs['p90_ms']:.2f} | {ours['p50_ms']:.2f} / "
                f"{ours['p90_ms']:.2f} | {ours['p50_ms'] / theirs['p50_ms']:.2f}× |"
            )
    print()
    ratios = {
        kind: loads[1]["binary_index"]["p50_ms"] / loads[0]["binary_index"]["p50_ms"] for kind, loads in results.items()
    }
    for kind, ratio in ratios.items():
        print(f"{kind}: BinaryIndex p50 with one competing process / quiet = {ratio:.2f} (acceptance ≤ 1.5)")
    print(
        json.dumps(
            {
                "benchmark": "binary_search_under_load",
                "cpu_flags": cpu_flags(),
                "codes": args.codes,
                "bits": args.bits,
                "openmp_threads": threads,
                "results": results,
                "loaded_over_quiet": {kind: round(ratio, 3) for kind, ratio in ratios.items()},
            }
        )
    )


if __name__ == "__main__":
    main()
