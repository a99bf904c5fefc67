"""Exact Hamming top-10 over 1M × 256-bit codes: BinaryIndex vs FAISS IndexBinaryFlat.

    python benchmarks/binary_search.py

Latency a query (median of --repeats runs) for one query and for a batch of 100, for
  FAISS IndexBinaryFlat called directly (the anchor),
  BinaryIndex (backend "faiss", the default when faiss-cpu is installed),
  BinaryIndex (backend "numpy", the fallback: XOR + np.bitwise_count on uint64 words),
  the in-graph TF search of exported SavedModels (`tf_hamming_top_k`, tf.function);
plus the memory the codes take. All four must return the same neighbours (checked).
"""

import argparse
import os
import resource
import statistics
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import tensorflow as tf  # noqa: E402
from common import machine_description  # noqa: E402

from keras_sentemb.retrieval import BinaryIndex, codes_to_words, tf_hamming_top_k  # noqa: E402


def rss_mb():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20


def per_query_ms(search, queries, repeats):
    search(queries)  # warm-up
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        search(queries)
        times.append(time.perf_counter() - start)
    return statistics.median(times) * 1000 / len(queries)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--codes", type=int, default=1_000_000)
    parser.add_argument("--bits", type=int, default=256)
    parser.add_argument("--k", type=int, default=10)
    parser.add_argument("--repeats", type=int, default=20)
    args = parser.parse_args()
    import faiss

    print(
        f"machine: {machine_description()}; faiss {faiss.__version__}, "
        f"{faiss.omp_get_max_threads()} OpenMP threads; TF {tf.__version__}"
    )
    rng = np.random.default_rng(0)
    codes = rng.integers(0, 256, (args.codes, args.bits // 8), dtype=np.uint8)
    queries = rng.integers(0, 256, (100, args.bits // 8), dtype=np.uint8)
    print(f"{args.codes:,} random {args.bits}-bit codes ({codes.nbytes / 2**20:.1f} MiB packed), k={args.k}")

    anchor = faiss.IndexBinaryFlat(args.bits)
    anchor.add(codes)
    indexes = {}
    for backend in ("faiss", "numpy"):
        before = rss_mb()
        index = BinaryIndex(args.bits, backend=backend)
        index.add(codes)
        indexes[backend] = index
        print(
            f"BinaryIndex[{backend}]: memory_bytes {index.memory_bytes / 2**20:.1f} MiB, "
            f"RSS grew {rss_mb() - before:.1f} MiB"
        )
    table = tf.constant(codes_to_words(codes))
    tf_search = tf.function(
        lambda q: tf_hamming_top_k(q, table, args.k), input_signature=[tf.TensorSpec([None, args.bits // 8], tf.uint8)]
    )

    paths = {
        "FAISS IndexBinaryFlat (anchor)": lambda q: anchor.search(q, args.k),
        "BinaryIndex (faiss backend)": lambda q: indexes["faiss"].search(q, args.k),
        "BinaryIndex (numpy fallback)": lambda q: indexes["numpy"].search(q, args.k),
        "in-graph TF (tf_hamming_top_k)": lambda q: tf_search(tf.constant(q)),
    }
    reference = anchor.search(queries, args.k)[1]
    for name, search in paths.items():
        found = np.asarray(search(queries)[1])
        assert np.array_equal(found, reference), f"{name} returned other neighbours"
    print("all paths returned identical neighbours for the 100 queries")

    rows = []
    for name, search in paths.items():
        repeats = args.repeats if "numpy" not in name and "TF" not in name else max(3, args.repeats // 4)
        single = per_query_ms(search, queries[:1], repeats)
        batch = per_query_ms(search, queries, max(3, repeats // 4))
        rows.append((name, single, batch))
    anchor_single, anchor_batch = rows[0][1], rows[0][2]
    print(f"\n{'path':<34}{'1 query ms':>11}{'× anchor':>10}{'100 queries ms/q':>18}{'× anchor':>10}")
    for name, single, batch in rows:
        print(f"{name:<34}{single:11.3f}{single / anchor_single:10.2f}{batch:18.3f}{batch / anchor_batch:10.2f}")
    print(f"\npeak RSS {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**10:.0f} MiB")


if __name__ == "__main__":
    main()
