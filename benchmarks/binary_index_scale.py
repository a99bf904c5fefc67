"""Binary codes at 10 million: the sub-linear `BinaryIndex` kinds (FAISS IVF and HNSW) against the
exact flat scan, and FAISS binary indexes the library does not wrap, in the same run.

    python benchmarks/binary_index_scale.py            # ~55 min on 2 cores, ~6 GB of memory

Codes: the zoo's default nested code (`minilm-l6-hash512-nested`, 512 bits) of real sentences —
every distinct sentence of the data folder but STS-B test's, plus the English sentences of the
docstrings of the installed Python packages (`docstring_sentences.py`); vectors
all-MiniLM-L6-v2, cached.
Queries: 1,000 of those sentences drawn at random (seed 0) and kept out of the collection.

Growing to 10M (documented, deterministic, seed 0): the real codes, then copies of them drawn in
turn with every bit flipped independently with probability p, where p·bits = the median Hamming
distance from a query's code to its 10th nearest real code. A copy is thus as far from its source
as a typical 10th neighbour: the grown collection keeps the real codes' layout with ~N/R times
their density (R real codes), and it has no near-duplicates that would make search easy.

Recall@10 is of the exact Hamming top 10 (FAISS `IndexBinaryFlat` over all codes): a returned
code counts when its distance is ≤ the exact 10th distance (ties at the boundary are equally
right), and the count is capped at 10. Latency: one query a call (a user's request), 2 threads,
median (p50) and p90 over `--latency-queries` queries. Memory: the index's bytes (codes and
structure). Writes a JSON report and the recall/latency plot.
"""

import argparse
import json
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from common import REPO, SHARED_DATA, cpu_flags, machine_description, save_figure  # noqa: E402
from docstring_sentences import docstring_sentences  # noqa: E402

from keras_sentemb import zoo  # noqa: E402
from keras_sentemb.data.sentence_corpus import collect_sentences  # noqa: E402
from keras_sentemb.retrieval import BinaryIndex  # noqa: E402
from keras_sentemb.utils.array_cache import cached_array, fingerprint, fingerprint_texts, fingerprint_weights  # noqa: E402
from keras_sentemb.utils.atomic_files import atomic_open  # noqa: E402

K = 10
NOT_WRAPPED = ("IndexBinaryIVF (HNSW quantizer)", "IndexBinaryMultiHash")
TARGET_RECALL = 0.95


def real_codes(args):
    """(sentences, their codes [R, bits/8]) of the data folder plus the docstring corpus."""
    # STS-B test stays out: the zoo code is evaluated there (and these are the recipes' cached vectors)
    shared = collect_sentences(args.data, exclude_files=["stsb/test.tsv"])
    hashed = zoo.load(args.model)
    encoder = hashed.encoder
    # the shared sentences' vectors under the zoo recipes' cache key (shared with them)
    key = fingerprint("minilm-l6", fingerprint_texts(shared), fingerprint_weights(encoder))
    shared_vectors = cached_array(args.cache, "minilm-l6-shared-sentences", key, lambda: encoder.encode(shared))
    known = set(shared)
    extra = [s for s in docstring_sentences() if s not in known]
    key = fingerprint("minilm-l6", fingerprint_texts(extra), fingerprint_weights(encoder))
    extra_vectors = cached_array(
        args.cache, "minilm-l6-docstring-sentences", key, lambda: encoder.encode(extra, progress=True)
    )
    print(f"real sentences: {len(shared):,} from {args.data} + {len(extra):,} docstring sentences")
    codes = hashed.hash_embeddings(np.concatenate([shared_vectors, extra_vectors]))
    return shared + extra, codes, hashed.bits


def grow(real, total, p, seed):
    """`total` codes: `real`, then copies of real codes (in turn) with each bit flipped with
    probability p (the module doc)."""
    rng = np.random.default_rng(seed)
    grown = np.empty((total, real.shape[1]), np.uint8)
    grown[: len(real)] = real
    bits = np.unpackbits(real, axis=1)
    start = len(real)
    while start < total:
        count = min(len(real), total - start)
        flips = rng.random((count, bits.shape[1]), dtype=np.float32) < p
        grown[start : start + count] = np.packbits(bits[:count] ^ flips, axis=1)
        start += count
    return grown


def recall_of_exact(distances, exact_distances):
    """Mean share of the exact top-k found: returned distances ≤ the exact k-th, capped at k."""
    kth = exact_distances[:, K - 1 : K]
    return float(np.mean(np.minimum((distances[:, :K] <= kth).sum(axis=1), K) / K))


def latencies_ms(searches, queries):
    """[(p50, p90)] milliseconds of each `search(one query)` over the queries, interleaved: query
    by query, each search in turn (rotating who goes first), so that caches warmed by one query
    favour none of them; one warm-up call each first."""
    for search in searches:
        search(queries[:1])
    times = [[] for _ in searches]
    for i in range(len(queries)):
        for j in range(len(searches)):
            turn = (i + j) % len(searches)
            start = time.perf_counter()
            searches[turn](queries[i : i + 1])
            times[turn].append(time.perf_counter() - start)
    return [(1000 * float(np.median(t)), 1000 * float(np.percentile(t, 90))) for t in times]


def measure(entries, queries, exact_distances, latency_queries):
    """Rows for `entries` [(label, family, wrapped, search, fields)] measured together:
    recall@10 of the exact Hamming top 10 (all queries) and interleaved single-query latency."""
    timings = latencies_ms([entry[3] for entry in entries], queries[:latency_queries])
    rows = []
    for (label, family, wrapped, search, fields), (p50, p90) in zip(entries, timings):
        recall = recall_of_exact(search(queries)[0], exact_distances)
        rows.append(
            {
                "label": label,
                "family": family,
                "wrapped": wrapped,
                "recall": recall,
                "p50_ms": p50,
                "p90_ms": p90,
                **fields,
            }
        )
        print(f"  {label:<44} recall@10 {recall:.4f}   p50 {p50:8.3f} ms   p90 {p90:8.3f} ms", flush=True)
    return rows


def sweep_with_raw(index, parameter, values, raw_family, same, queries, exact_distances, args):
    """Rows of a `BinaryIndex` at each value of its search `parameter`, each measured interleaved
    with the same FAISS structure called directly (the wrapper's cost)."""
    raw = index._faiss_index
    rows = []
    for value in values:
        index.set_search_parameters(**{parameter: value})
        rows += measure(
            [
                (
                    f"BinaryIndex {index.kind} {parameter}={value}",
                    f"BinaryIndex {index.kind}",
                    True,
                    lambda q: index.search(q, K),
                    {parameter: value},
                ),
                (
                    f"faiss.{raw_family} {parameter}={value} ({same}, unwrapped)",
                    raw_family,
                    False,
                    lambda q: raw.search(q, K),
                    {parameter: value},
                ),
            ],
            queries,
            exact_distances,
            args.latency_queries,
        )
    return rows


def fastest_at(rows, family, recall):
    """The lowest-p50 row of a family reaching `recall`; None when none does."""
    good = [r for r in rows if r["family"] == family and r["recall"] >= recall]
    return min(good, key=lambda r: r["p50_ms"]) if good else None


def timed(label, function):
    start = time.perf_counter()
    result = function()
    seconds = time.perf_counter() - start
    print(f"{label}: {seconds:.1f} s", flush=True)
    return result, seconds


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", default=SHARED_DATA)
    parser.add_argument("--model", default="minilm-l6-hash512-nested", help="a zoo name: a hashed encoder")
    parser.add_argument("--codes", type=int, default=10_000_000, help="collection size after growing")
    parser.add_argument("--queries", type=int, default=1000)
    parser.add_argument("--latency-queries", type=int, default=300)
    parser.add_argument("--hnsw-m", type=int, default=32)
    parser.add_argument("--ef-construction", type=int, default=40)
    parser.add_argument("--ef-search", type=int, nargs="+", default=[16, 32, 64, 128, 256, 512])
    parser.add_argument("--nprobe", type=int, nargs="+", default=[8, 16, 32, 64, 128, 256, 512])
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--cache", default=os.path.join(REPO, "out", "cache"))
    parser.add_argument("--report", default=os.path.join("out", "binary_index_scale.json"))
    parser.add_argument("--plot", default=os.path.join("docs", "binary_index_scale.png"))
    args = parser.parse_args()
    import faiss  # the anchors: FAISS binary indexes called directly

    print(
        f"machine: {machine_description()}; CPU flags: {cpu_flags()}; FAISS {faiss.__version__}, "
        f"{faiss.omp_get_max_threads()} threads"
    )

    sentences, codes, bits = real_codes(args)
    rng = np.random.default_rng(args.seed)
    order = rng.permutation(len(codes))
    queries, real = codes[order[: args.queries]], codes[np.sort(order[args.queries :])]
    print(f"{len(real):,} real codes of {bits} bits in the collection, {len(queries):,} held-out queries")

    probe = faiss.IndexBinaryFlat(bits)
    probe.add(real)
    real_distances, _ = probe.search(queries, K)
    tenth = float(np.median(real_distances[:, K - 1]))
    p = tenth / bits
    del probe
    print(
        f"median distance to the 1st / 10th real neighbour: {np.median(real_distances[:, 0]):.0f} / {tenth:.0f} "
        f"bits → flip probability p = {p:.4f}"
    )
    collection, grow_seconds = timed(f"grew to {args.codes:,} codes", lambda: grow(real, args.codes, p, args.seed + 1))

    rows, builds = [], {}
    print("\nexact Hamming scan (the ground truth)")
    flat, seconds = timed(
        "  BinaryIndex flat (FAISS IndexBinaryFlat) add",
        lambda: _filled(BinaryIndex(bits, backend="faiss"), collection),
    )
    (exact_distances, _), exact_seconds = timed(
        f"  exact top {K} of {len(queries):,} queries (batched)", lambda: flat.search(queries, K)
    )
    builds["flat"] = {"seconds": seconds, "bytes": flat.memory_bytes}
    raw_flat = flat._faiss_index  # the same FAISS index, called without the wrapper
    rows += measure(
        [
            ("BinaryIndex flat (exact scan)", "BinaryIndex flat", True, lambda q: flat.search(q, K), {}),
            ("faiss.IndexBinaryFlat (unwrapped)", "IndexBinaryFlat", False, lambda q: raw_flat.search(q, K), {}),
        ],
        queries,
        exact_distances,
        args.latency_queries,
    )
    flat_p50 = rows[0]["p50_ms"]

    print(f"\nBinaryIndex kind='hnsw' (hnsw_m={args.hnsw_m}, ef_construction={args.ef_construction})")
    hnsw, seconds = timed(
        "  build",
        lambda: _filled(
            BinaryIndex(bits, kind="hnsw", hnsw_m=args.hnsw_m, ef_construction=args.ef_construction), collection
        ),
    )
    builds["hnsw"] = {"seconds": seconds, "bytes": hnsw.memory_bytes}
    print(f"  memory: {hnsw.memory_bytes / 2**20:,.0f} MiB ({hnsw.memory_bytes / len(collection):.0f} bytes a code)")
    rows += sweep_with_raw(
        hnsw, "ef_search", args.ef_search, "IndexBinaryHNSW", "same graph", queries, exact_distances, args
    )
    hnsw = None  # frees the graph before the next build

    print("\nBinaryIndex kind='ivf' (nlist = 4·√N)")
    ivf, seconds = timed("  build (train + add)", lambda: _filled(BinaryIndex(bits, kind="ivf"), collection))
    builds["ivf"] = {"seconds": seconds, "bytes": ivf.memory_bytes, "nlist": ivf.parameters["nlist"]}
    print(f"  nlist {ivf.parameters['nlist']:,}; memory: {ivf.memory_bytes / 2**20:,.0f} MiB")
    nprobes = [n for n in args.nprobe if n <= ivf.parameters["nlist"]]
    rows += sweep_with_raw(ivf, "nprobe", nprobes, "IndexBinaryIVF", "same lists", queries, exact_distances, args)
    nlist = ivf.parameters["nlist"]
    ivf = None

    print(f"\nunwrapped: faiss.IndexBinaryIVF with an HNSW quantizer (nlist {nlist:,}, quantizer M 32)")

    def build_ivf_hnsw():
        index = faiss.IndexBinaryIVF(faiss.IndexBinaryHNSW(bits, 32), bits, nlist)
        index.cp.min_points_per_centroid = 39
        index.train(collection[rng.choice(len(collection), nlist * 39, replace=False)])
        index.add(collection)
        return index

    ivf_hnsw, seconds = timed("  build (train + add)", build_ivf_hnsw)
    builds["ivf_hnsw_quantizer"] = {"seconds": seconds}
    for nprobe in [n for n in args.nprobe if n <= nlist]:
        ivf_hnsw.nprobe = nprobe
        faiss.downcast_IndexBinary(ivf_hnsw.quantizer).hnsw.efSearch = max(64, nprobe)
        rows += measure(
            [
                (
                    f"faiss IVF+HNSW quantizer nprobe={nprobe}",
                    "IndexBinaryIVF (HNSW quantizer)",
                    False,
                    lambda q: ivf_hnsw.search(q, K),
                    {"nprobe": nprobe},
                )
            ],
            queries,
            exact_distances,
            args.latency_queries,
        )
    ivf_hnsw = None

    print("\nunwrapped: faiss.IndexBinaryMultiHash (nhash 8, 16-bit keys)")
    multihash, seconds = timed("  build", lambda: _added(faiss.IndexBinaryMultiHash(bits, 8, 16), collection))
    builds["multihash"] = {"seconds": seconds}
    for nflip in (0, 1, 2):
        multihash.nflip = nflip
        rows += measure(
            [
                (
                    f"faiss.IndexBinaryMultiHash nflip={nflip}",
                    "IndexBinaryMultiHash",
                    False,
                    lambda q: multihash.search(q, K),
                    {"nflip": nflip},
                )
            ],
            queries,
            exact_distances,
            min(args.latency_queries, 100),
        )
    multihash = None

    print(
        f"\nat recall@10 ≥ {TARGET_RECALL} of exact Hamming ({len(collection):,} codes; flat scan p50 {flat_p50:.3f} ms):"
    )
    families = list(dict.fromkeys(r["family"] for r in rows))
    summary = {}
    for family in families:
        best = fastest_at(rows, family, TARGET_RECALL)
        summary[family] = best
        if best is None:
            print(
                f"  {family:<36} never reaches it (best recall {max(r['recall'] for r in rows if r['family'] == family):.4f})"
            )
        else:
            print(
                f"  {family:<36} {best['label']:<44} p50 {best['p50_ms']:8.3f} ms  "
                f"{flat_p50 / best['p50_ms']:6.1f}× faster than the flat scan"
            )
    wrapped = [summary[f] for f in families if summary[f] and f.startswith("BinaryIndex") and f != "BinaryIndex flat"]
    # FAISS indexes we did not wrap (the raw calls of the wrapped structures measure the wrapper's cost)
    unwrapped = [summary[f] for f in families if summary[f] and f in NOT_WRAPPED]
    ours = min(wrapped, key=lambda r: r["p50_ms"]) if wrapped else None
    theirs = min(unwrapped, key=lambda r: r["p50_ms"]) if unwrapped else None
    if ours:
        print(
            f"best BinaryIndex kind: {ours['label']} — {flat_p50 / ours['p50_ms']:.1f}× the flat scan's speed at "
            f"recall {ours['recall']:.4f}"
        )
    if ours and theirs:
        print(
            f"best FAISS binary index called directly: {theirs['label']} — BinaryIndex is "
            f"{theirs['p50_ms'] / ours['p50_ms']:.2f}× its speed at recall ≥ {TARGET_RECALL}"
        )

    plot(rows, flat_p50, len(collection), bits, args.plot)
    report = {
        "machine": machine_description(),
        "cpu_flags": cpu_flags(),
        "faiss": faiss.__version__,
        "threads": faiss.omp_get_max_threads(),
        "real_sentences": len(sentences),
        "real_codes_in_collection": len(real),
        "queries": len(queries),
        "codes": len(collection),
        "bits": bits,
        "flip_probability": p,
        "grow_seconds": grow_seconds,
        "exact_batch_seconds": exact_seconds,
        "builds": builds,
        "rows": rows,
        "flat_p50_ms": flat_p50,
        "best_wrapped": ours,
        "best_unwrapped": theirs,
    }
    os.makedirs(os.path.dirname(os.path.abspath(args.report)), exist_ok=True)
    with atomic_open(args.report, "w") as f:
        json.dump(report, f, indent=1)
    print(f"\nwrote {args.report} and {args.plot}")


def _filled(index, codes):
    index.add(codes)
    return index


def _added(faiss_index, codes):
    faiss_index.add(codes)
    return faiss_index


def plot(rows, flat_p50, count, bits, path):
    """Recall@10 of the exact Hamming top 10 against p50 latency, a curve per index family."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7.5, 4.8))
    for family in dict.fromkeys(r["family"] for r in rows):
        points = sorted((r["p50_ms"], r["recall"]) for r in rows if r["family"] == family)
        style = "-o" if family.startswith("BinaryIndex") else "--x"
        ax.plot([x for x, _ in points], [y for _, y in points], style, label=family, markersize=4)
    ax.axvline(flat_p50 / 10, color="grey", linestyle=":", linewidth=1)
    ax.text(flat_p50 / 10, 0.02, " 10× faster than the flat scan", color="grey", fontsize=8, rotation=90, va="bottom")
    ax.axhline(TARGET_RECALL, color="grey", linestyle=":", linewidth=1)
    ax.set_xscale("log")
    ax.set_xlabel("p50 latency of one query (ms, log scale)")
    ax.set_ylabel("recall@10 of the exact Hamming top 10")
    ax.set_ylim(0, 1.02)
    ax.set_title(f"{count / 1e6:g}M {bits}-bit codes (real sentence codes, grown), 2 cores")
    ax.legend(fontsize=7, loc="lower right")
    save_figure(fig, path)


if __name__ == "__main__":
    main()
