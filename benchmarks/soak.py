"""Soak: a stream of ≥ 1M sentences through an exported SavedModel in bounded memory.

    python benchmarks/soak.py                                  # zoo:inferlite-glove, 1M sentences
    python benchmarks/soak.py --model zoo:minilm-l6 --sentences 200000

The sentences are generated on the fly from the distinct sentences of the shared data
(sentence i = base[i mod N] + " " + base[(7i + 3) mod N] truncated, so every text differs
and lengths vary like real text); they are never held in memory together. The model is
exported to a temporary folder, loaded with `tf.saved_model.load` (what TF Serving and
the Beam handler do) and called batch after batch; the vectors are reduced to a running
checksum and dropped, as a serving loop would hand them on.

Every --every sentences it prints sentences done, throughput over the last interval and
the resident set size (RSS, psutil); at the end the peak RSS after the first 100k
sentences against the RSS at 100k — the anchor — as a ratio (target ≤ 1.10), and a PNG of
RSS and throughput over the run.
"""

import argparse
import json
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from common import machine_description  # noqa: E402

WARM_UP = 100_000  # the anchor: RSS once the first 100k sentences are done


def sentence_stream(base, count, max_chars=300):
    """`count` generated sentences, one at a time."""
    n = len(base)
    for i in range(count):
        yield f"{base[i % n]} {base[(7 * i + 3) % n]}"[:max_chars]


def batches(stream, size):
    batch = []
    for text in stream:
        batch.append(text.encode("utf-8"))
        if len(batch) == size:
            yield batch
            batch = []
    if batch:
        yield batch


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument(
        "--model",
        default="zoo:inferlite-glove",
        help="model spec (zoo:NAME, preset, .keras) or an exported SavedModel folder",
    )
    parser.add_argument("--sentences", type=int, default=1_000_000)
    parser.add_argument("--batch-size", type=int, default=512)
    parser.add_argument("--every", type=int, default=50_000, help="report interval (sentences)")
    parser.add_argument("--data", default=os.environ.get("KERAS_SENTEMB_DATA", "../shared/data"))
    parser.add_argument(
        "--output", default="docs", help="folder for soak.json and soak.png (default docs/, shown in the README)"
    )
    args = parser.parse_args()
    if args.sentences < 2 * WARM_UP:
        parser.error(f"--sentences must be at least {2 * WARM_UP} (the anchor is taken at {WARM_UP})")

    import psutil
    import tensorflow as tf
    import tensorflow_text  # noqa: F401

    from keras_sentemb.apps.saved_model_folder import serving_folder
    from keras_sentemb.data.sentence_corpus import collect_sentences

    base = collect_sentences(args.data)
    folder = serving_folder(args.model)  # an export, or the model exported to a temporary folder
    serve = tf.saved_model.load(folder).signatures["serving_default"]
    process = psutil.Process()
    print(
        f"soak: {args.sentences:,} sentences generated from {len(base):,} distinct ones, "
        f"{args.model} via {folder}, batch {args.batch_size}"
    )
    print(machine_description())
    print(f"{'sentences':>10} {'sent/s':>8} {'RSS MB':>8}")

    samples = [(0, 0.0, process.memory_info().rss / 2**20)]
    checksum, done, start = 0.0, 0, time.perf_counter()
    last_time, last_done, next_report = start, 0, args.every
    for batch in batches(sentence_stream(base, args.sentences), args.batch_size):
        vectors = serve(texts=tf.constant(batch))["embedding"].numpy()
        checksum += float(vectors[:, 0].sum())
        done += len(batch)
        if done >= next_report or done == args.sentences:
            now = time.perf_counter()
            rate = (done - last_done) / (now - last_time)
            rss = process.memory_info().rss / 2**20
            samples.append((done, rate, rss))
            print(f"{done:>10,} {rate:>8.0f} {rss:>8.1f}", flush=True)
            last_time, last_done, next_report = now, done, next_report + args.every
    seconds = time.perf_counter() - start

    anchor = next(rss for n, _, rss in samples if n >= WARM_UP)
    peak_after = max(rss for n, _, rss in samples if n >= WARM_UP)
    ratio = peak_after / anchor
    print(
        f"\nthroughput {done / seconds:,.0f} sentences/s over {seconds:.0f} s ({done:,} sentences, "
        f"checksum {checksum:.4f})"
    )
    print(
        f"RSS at {WARM_UP:,} sentences (anchor) {anchor:.1f} MB, peak after it {peak_after:.1f} MB, "
        f"ratio {ratio:.3f} (target <= 1.10: {'met' if ratio <= 1.10 else 'NOT met'})"
    )

    os.makedirs(args.output, exist_ok=True)
    result = {
        "model": args.model,
        "sentences": done,
        "batch_size": args.batch_size,
        "seconds": round(seconds, 1),
        "sentences_per_second": round(done / seconds),
        "rss_anchor_mb": round(anchor, 1),
        "rss_peak_after_anchor_mb": round(peak_after, 1),
        "ratio": round(ratio, 4),
        "samples": samples,
        "machine": machine_description(),
    }
    with open(os.path.join(args.output, "soak.json"), "w") as f:
        json.dump(result, f, indent=1)
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    done_k = np.array([n for n, _, _ in samples[1:]]) / 1000
    fig, (top, bottom) = plt.subplots(2, 1, figsize=(7, 5), sharex=True)
    top.plot(done_k, [rss for _, _, rss in samples[1:]], marker=".")
    top.axhline(anchor * 1.10, color="red", linestyle="--", label="anchor × 1.10")
    top.set_ylabel("RSS (MB)")
    top.legend()
    bottom.plot(done_k, [rate for _, rate, _ in samples[1:]], marker=".", color="green")
    bottom.set_ylabel("sentences/s")
    bottom.set_xlabel("sentences done (thousands)")
    fig.suptitle(f"soak: {args.model}, {done:,} sentences")
    fig.tight_layout()
    fig.savefig(os.path.join(args.output, "soak.png"), dpi=110)
    print(f"wrote {args.output}/soak.json and soak.png")


if __name__ == "__main__":
    main()
