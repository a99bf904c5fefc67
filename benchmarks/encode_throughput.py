"""Encoding throughput on the unique sentences of STS-B test, batch 64, side by side.

Paths measured in one run, each after a warm-up pass (tracing excluded), median of
`--repeats` timed passes:
- keras-sentemb `encode` (float32, smart batching) — the default, matches the reference;
- keras-sentemb `encode` with `dtype="mixed_bfloat16"` (smart batching, bf16 compute);
- a naive path: same model, every batch padded to 128 tokens, input order;
- the anchor: sentence-transformers `encode` on the same weights (PyTorch, CPU), run in
  the interpreter given by `--anchor-python` (see `make anchor-venv`);
- the fast word-level encoders, InferLite and BiLSTM-SRA (`encode`, float32, smart
  batching, their default batch of 256), loaded from `--inferlite` / `--bilstm-sra`
  (.keras files written by examples/train_inferlite.py and distill_bilstm_sra.py), each
  reported against the transformer default (float32 encode, batch 64) of the same run.
  Their targets: >= 3,000 sentences/s and >= 10x the transformer.

    python benchmarks/encode_throughput.py --anchor-python .anchor-venv/bin/python
"""

import argparse
import os
import statistics
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import keras  # noqa: E402
import numpy as np  # noqa: E402
from common import REPO, default_stsb_test, machine_description, run_anchor, save_figure  # noqa: E402

import keras_sentemb  # noqa: E402
from keras_sentemb.data.examples import read_scored_pairs  # noqa: E402
from keras_sentemb.data.length_buckets import pack_rows  # noqa: E402


def timed(function, repeats):
    function()  # warm-up: traces tf.functions, fills caches
    rates, result = [], None
    for _ in range(repeats):
        start = time.perf_counter()
        count, result = function()
        rates.append(count / (time.perf_counter() - start))
    return statistics.median(rates), result


def naive_fixed_length(encoder, sentences, batch_size, length=128):
    """Tokenise, pad every batch to `length`, keep input order: no smart batching."""
    tokenizer = encoder.tokenizer
    embed = encoder.embed_fn()
    rows = encoder.tokenize_to_rows([s.encode("utf-8") for s in sentences])
    out = np.zeros((len(sentences), encoder.embedding_dim), np.float32)
    for start in range(0, len(rows), batch_size):
        batch = [row[: length - 2] for row in rows[start : start + batch_size]]
        ids, mask = pack_rows(batch, length, tokenizer.start_ids, tokenizer.end_ids, tokenizer.pad_token_id)
        out[start : start + len(batch)] = embed(ids, mask).numpy()
    return len(sentences), out / np.linalg.norm(out, axis=1, keepdims=True)


def plot(results, anchor_rate, path):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    names = list(results) + (["sentence-transformers (anchor)"] if anchor_rate else [])
    rates = list(results.values()) + ([anchor_rate] if anchor_rate else [])
    fig, ax = plt.subplots(figsize=(8, 1.2 + 0.45 * len(names)))
    bars = ax.barh(names[::-1], rates[::-1], color=["#888"] * bool(anchor_rate) + ["#3b7dd8"] * len(results))
    ax.bar_label(bars, fmt="%.0f sent/s", padding=3)
    ax.set_xlabel("sentences per second, log scale (STS-B test unique sentences)")
    ax.set_xscale("log")
    ax.set_xlim(min(rates) / 2, max(rates) * 4)
    save_figure(fig, path)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", default=default_stsb_test())
    parser.add_argument("--batch-size", type=int, default=64)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--anchor-python", default=None)
    parser.add_argument("--inferlite", default=os.path.join(REPO, "out", "inferlite", "inferlite.keras"))
    parser.add_argument("--bilstm-sra", default=os.path.join(REPO, "out", "bilstm_sra", "bilstm_sra.keras"))
    parser.add_argument("--word-batch-size", type=int, default=256)
    parser.add_argument("--plot", default=os.path.join(REPO, "out", "benchmarks", "encode_throughput.png"))
    args = parser.parse_args()

    pairs = read_scored_pairs(args.data)
    sentences = sorted(set(pairs.sentences1) | set(pairs.sentences2))
    print(f"machine: {machine_description()}")
    print(f"data: {len(sentences)} unique sentences of {args.data}, batch {args.batch_size}")

    anchor = run_anchor(
        args.anchor_python,
        "throughput",
        args.data,
        ["--batch-size", str(args.batch_size), "--repeats", str(args.repeats)],
    )

    fp32 = keras_sentemb.SentenceEncoder.from_pretrained("minilm-l6")
    bf16 = keras_sentemb.SentenceEncoder.from_pretrained("minilm-l6", dtype="mixed_bfloat16")
    results, vectors = {}, {}
    for name, run in [
        (
            "keras-sentemb encode (float32)",
            lambda: (len(sentences), fp32.encode(sentences, batch_size=args.batch_size, progress=False)),
        ),
        (
            "keras-sentemb encode (mixed_bfloat16)",
            lambda: (len(sentences), bf16.encode(sentences, batch_size=args.batch_size, progress=False)),
        ),
        ("naive: pad to 128, float32", lambda: naive_fixed_length(fp32, sentences, args.batch_size)),
    ]:
        results[name], vectors[name] = timed(run, args.repeats)
    word_models = {}
    for name, path in (("InferLite", args.inferlite), ("BiLSTM-SRA", args.bilstm_sra)):
        if not os.path.exists(path):
            print(f"{name}: {path} not found, skipped (train it first, see examples/)")
            continue
        model = keras.saving.load_model(path)
        label = f"{name} encode (float32, batch {args.word_batch_size})"
        word_models[label] = model
        results[label], vectors[label] = timed(
            lambda model=model: (
                len(sentences),
                model.encode(sentences, batch_size=args.word_batch_size, progress=False),
            ),
            args.repeats,
        )

    anchor_rate = anchor["median_sent_per_s"] if anchor else None
    naive_rate = results["naive: pad to 128, float32"]
    print(f"\n{'path':<40}{'sent/s':>9}{'× anchor':>10}{'× naive':>9}")
    for name, rate in results.items():
        vs_anchor = f"{rate / anchor_rate:10.2f}" if anchor_rate else f"{'n/a':>10}"
        print(f"{name:<40}{rate:9.0f}{vs_anchor}{rate / naive_rate:9.2f}")
    if anchor:
        print(
            f"{'sentence-transformers encode (anchor)':<40}{anchor_rate:9.0f}{1.0:10.2f}"
            f"{anchor_rate / naive_rate:9.2f}   torch {anchor['torch']}, "
            f"{anchor['torch_threads']} threads"
        )
    else:
        print("anchor: not measured (give --anchor-python; see `make anchor-venv`)")
    transformer = results["keras-sentemb encode (float32)"]
    for label in word_models:
        rate = results[label]
        verdict = "meets" if rate >= 3000 and rate >= 10 * transformer else "MISSES"
        print(
            f"{label}: {rate:,.0f} sent/s = {rate / transformer:.1f}x the transformer "
            f"({transformer:,.0f} sent/s) -> {verdict} the >= 3,000 sent/s and >= 10x targets"
        )
    base = vectors["keras-sentemb encode (float32)"]
    for name in ("keras-sentemb encode (mixed_bfloat16)", "naive: pad to 128, float32"):
        print(f"max |Δ| of {name} vs float32 encode: {np.abs(vectors[name] - base).max():.2e}")
    plot(results, anchor_rate, args.plot)
    print(f"plot: {os.path.relpath(args.plot, REPO)}")


if __name__ == "__main__":
    main()
