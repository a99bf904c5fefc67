"""Serving speed, one interleaved run: our encode precisions and SavedModel against
sentence-transformers' torch, ONNX Runtime and OpenVINO backends on the same weights.

Every row measures one model (`--model`: all-MiniLM-L6-v2 "minilm-l6", the default, or
all-mpnet-base-v2 "mpnet-base") on the unique sentences of STS-B test:
- throughput: all sentences, batch `--batch-size` (32), after a warm-up pass;
- batch-1 latency: p50 / p99 over the first `--latency-sentences` sentences one at a time
  (tokenising included: raw text in, vector out);
- STS-B test Spearman x100 of the cosine of the vectors of that row.

Rounds (`--rounds`, 3) interleave the processes so that a slow minute of the machine hits
every row alike; each number is the median over rounds. In a round:
1. the anchor interpreter (`--anchor-python`, `make anchor-venv`) times sentence-transformers
   with backend torch, ONNX Runtime (float32, O3-fused, dynamic int8 for AVX-512 VNNI) and
   OpenVINO (its default, float32, static int8) — see anchors/serving_backends_anchor.py;
2. this process times `encode` at each (backend, precision): OpenVINO's int8 calibrated on the
   same `--calibration-sentences` SST-2 train sentences as the anchor's static int8, LiteRT's
   float32 and dynamic-range int8 (no calibration);
3. a fresh process loads the exported SavedModel (raw strings in, the TF Serving path) and
   times its `serving_default` signature: requests of `--request-size` texts (a bulk client
   or a TF Serving batch), requests of `--batch-size` texts in corpus order, and batch 1.

The anchors are exported once into `--anchor-cache` (out/serving_anchors). Prints the table,
the acceptance ratios, and a plot (throughput against batch-1 latency).

    python benchmarks/serving_speed.py --anchor-python .anchor-venv/bin/python
    python benchmarks/serving_speed.py --anchor-python .anchor-venv/bin/python --model mpnet-base --rounds 1

The keras-hub TextEmbedder rows are MiniLM's only (keras-hub has no MPNet).
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import numpy as np  # noqa: E402
from common import REPO, SHARED_DATA, cpu_flags, default_stsb_test, machine_description, save_figure  # noqa: E402
from scipy.stats import spearmanr  # noqa: E402

import keras_sentemb  # noqa: E402
import keras_sentemb.pretrained  # noqa: E402
from keras_sentemb.data.examples import read_scored_pairs  # noqa: E402
from keras_sentemb.data.table_reader import read_table  # noqa: E402

ANCHOR = os.path.join(REPO, "benchmarks", "anchors", "serving_backends_anchor.py")
OURS = (
    ("keras-sentemb encode, TensorFlow float32", "tensorflow", "float32"),
    ("keras-sentemb encode, OpenVINO float32", "openvino", "float32"),
    ("keras-sentemb encode, OpenVINO bfloat16", "openvino", "bfloat16"),
    ("keras-sentemb encode, OpenVINO int8", "openvino", "int8"),
    ("keras-sentemb encode, LiteRT float32", "litert", "float32"),
    ("keras-sentemb encode, LiteRT int8 (dynamic range)", "litert", "int8"),
)
TF_BF16 = "keras-sentemb encode, TensorFlow mixed_bfloat16 policy"
HUB_PLAIN = "keras-hub TextEmbedder.encode_text (its preprocessor pads to 256)"
HUB_OURS = (
    ("keras-hub TextEmbedder via keras-sentemb, TensorFlow float32", "tensorflow", "float32"),
    ("keras-hub TextEmbedder via keras-sentemb, OpenVINO bfloat16", "openvino", "bfloat16"),
)


def measure(encode, sentences, batch_size, latency_sentences, pairs, index):
    encode(sentences[: batch_size * 2], batch_size)
    start = time.perf_counter()
    vectors = np.asarray(encode(sentences, batch_size), np.float32)
    rate = len(sentences) / (time.perf_counter() - start)
    latencies = []
    for sentence in sentences[:latency_sentences]:
        start = time.perf_counter()
        encode([sentence], 1)
        latencies.append(time.perf_counter() - start)
    cosines = np.sum(vectors[[index[a] for a in pairs.sentences1]] * vectors[[index[b] for b in pairs.sentences2]], 1)
    return {
        "sent_per_s": rate,
        "p50_ms": 1e3 * float(np.percentile(latencies, 50)),
        "p99_ms": 1e3 * float(np.percentile(latencies, 99)),
        "sts_x100": 100 * float(spearmanr(cosines, pairs.scores).statistic),
    }, vectors


def measure_plain_text_embedder(embedder, sentences, count, latency_count):
    """keras-hub's own path is ~30x slower: timed on the first `count` sentences (throughput)
    and `latency_count` single sentences; its vectors are those of the via-keras-sentemb row
    (tests/models/test_text_embedder_encoder.py), so its STS is not recomputed."""
    subset = sentences[:count]
    embedder.encode_text(subset[:32], batch_size=32, verbose=0)
    start = time.perf_counter()
    embedder.encode_text(subset, batch_size=32, verbose=0)
    rate = len(subset) / (time.perf_counter() - start)
    latencies = []
    for sentence in sentences[:latency_count]:
        start = time.perf_counter()
        embedder.encode_text([sentence], verbose=0)
        latencies.append(time.perf_counter() - start)
    return {
        "sent_per_s": rate,
        "p50_ms": 1e3 * float(np.percentile(latencies, 50)),
        "p99_ms": 1e3 * float(np.percentile(latencies, 99)),
        "sts_x100": float("nan"),
    }


def saved_model_round(folder, data, args):
    """The SavedModel, timed in a fresh interpreter (this file with `--saved-model-child`)."""
    command = [
        sys.executable,
        os.path.abspath(__file__),
        "--saved-model-child",
        folder,
        "--data",
        data,
        "--batch-size",
        str(args.batch_size),
        "--request-size",
        str(args.request_size),
        "--latency-sentences",
        str(args.latency_sentences),
    ]
    result = subprocess.run(command, capture_output=True, text=True, check=False)
    if result.returncode != 0:
        raise RuntimeError(f"the SavedModel run failed:\n{result.stderr[-3000:]}")
    return json.loads(result.stdout.strip().splitlines()[-1])


def saved_model_child(args):
    import tensorflow as tf
    import tensorflow_text  # noqa: F401  (registers the tokenizer's ops)

    pairs = read_scored_pairs(args.data)
    sentences = sorted(set(pairs.sentences1) | set(pairs.sentences2))
    index = {s: i for i, s in enumerate(sentences)}
    serve = tf.saved_model.load(args.saved_model_child).signatures["serving_default"]

    def requests_of(size):
        def encode(texts, _):
            return np.concatenate(
                [serve(texts=tf.constant(texts[i : i + size]))["embedding"].numpy() for i in range(0, len(texts), size)]
            )

        return encode

    results = {}
    for label, size in (("requests", args.request_size), ("client batches", args.batch_size)):
        results[label], vectors = measure(
            requests_of(size), sentences, args.batch_size, args.latency_sentences, pairs, index
        )
    np.save(os.path.join(os.path.dirname(os.path.dirname(args.saved_model_child)), "saved_model_vectors.npy"), vectors)
    print(json.dumps(results))


def run_anchor(args, task, *extra):
    command = [
        args.anchor_python,
        ANCHOR,
        task,
        "--cache",
        args.anchor_cache,
        "--model-folder",
        args.model_folder,
        *extra,
    ]
    result = subprocess.run(command, capture_output=True, text=True, check=False)
    if result.returncode != 0:
        raise RuntimeError(f"the anchor ({task}) failed:\n{result.stderr[-3000:]}")
    return json.loads(result.stdout.strip().splitlines()[-1])


def plot(rows, path):
    """Two bar panels, one row per config: throughput at batch 32 and batch-1 p50 (log scale)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    names = sorted(rows, key=lambda name: rows[name]["sent_per_s"])
    labels = [
        name.replace("keras-sentemb ", "")
        .replace("sentence-transformers ", "ST ")
        .replace(" (its preprocessor pads to 256)", "")
        for name in names
    ]
    colours = ["#888" if name.startswith(("sentence-transformers", HUB_PLAIN)) else "#3b7dd8" for name in names]
    fig, (rate_ax, latency_ax) = plt.subplots(1, 2, figsize=(12, 0.32 * len(names) + 1.6), sharey=True)
    positions = range(len(names))
    for ax, key, label in ((rate_ax, "sent_per_s", "{:.0f}"), (latency_ax, "p50_ms", "{:.2f}")):
        ax.barh(positions, [rows[name][key] for name in names], color=colours)
        for position, name in zip(positions, names):
            value = rows[name][key]
            ax.annotate(label.format(value), (value, position), xytext=(3, -3), textcoords="offset points", fontsize=7)
    rate_ax.set_yticks(list(positions), labels, fontsize=8)
    rate_ax.set_xlabel("sentences/s at batch 32 (higher is better)")
    latency_ax.set_xscale("log")
    latency_ax.set_xlabel("batch-1 latency p50, ms, log scale (lower is better)")
    for ax in (rate_ax, latency_ax):
        ax.grid(axis="x", alpha=0.3)
        ax.margins(x=0.1)
    fig.suptitle("all-MiniLM-L6-v2 on STS-B test sentences, 2 CPU cores: keras-sentemb (blue), others (grey)")
    save_figure(fig, path)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", default=default_stsb_test())
    parser.add_argument("--calibration", default=os.path.join(SHARED_DATA, "sst2", "train.tsv"))
    parser.add_argument("--calibration-sentences", type=int, default=300)
    parser.add_argument("--anchor-python", default=None)
    parser.add_argument("--model", default="minilm-l6", choices=sorted(keras_sentemb.pretrained.PRETRAINED_SOURCES))
    parser.add_argument("--anchor-cache", default=None, help="default: out/serving_anchors[/<model>]")
    parser.add_argument("--batch-size", type=int, default=32)
    parser.add_argument("--request-size", type=int, default=512)
    parser.add_argument("--latency-sentences", type=int, default=200)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--text-embedder-sentences", type=int, default=256)
    parser.add_argument("--plot", default=os.path.join(REPO, "out", "benchmarks", "serving_speed.png"))
    parser.add_argument("--saved-model-child", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.saved_model_child:
        return saved_model_child(args)
    suffix = [] if args.model == "minilm-l6" else [args.model]
    if args.anchor_cache is None:
        args.anchor_cache = os.path.join(REPO, "out", "serving_anchors", *suffix)
    args.model_folder = keras_sentemb.pretrained.resolve_pretrained_dir(args.model)

    pairs = read_scored_pairs(args.data)
    sentences = sorted(set(pairs.sentences1) | set(pairs.sentences2))
    index = {s: i for i, s in enumerate(sentences)}
    columns, _ = read_table(args.calibration, {"sentence": ("sentence", str)})
    calibration = columns["sentence"][: args.calibration_sentences]
    print(f"machine: {machine_description()}; CPU flags: {cpu_flags()}")
    print(
        f"data: {len(sentences)} unique sentences of {args.data}, batch {args.batch_size}, "
        f"{args.rounds} interleaved rounds (median); int8 calibration: {len(calibration)} sentences of "
        f"{args.calibration}"
    )

    if args.anchor_python:
        os.makedirs(args.anchor_cache, exist_ok=True)
        calibration_file = os.path.join(args.anchor_cache, "calibration.txt")
        with open(calibration_file, "w", encoding="utf-8") as f:
            f.write("\n".join(calibration) + "\n")
        if not os.path.exists(
            os.path.join(args.anchor_cache, "openvino", "openvino", "openvino_model_qint8_quantized.xml")
        ):
            built = run_anchor(args, "build", "--calibration", calibration_file)
            print(f"anchors built in {sum(built['seconds'].values()):.0f} s: {built['seconds']}")
    else:
        print("anchor: not measured (give --anchor-python; see `make anchor-venv`)")

    print(f"model: {args.model} ({args.model_folder})")
    encoder = keras_sentemb.SentenceEncoder.from_pretrained(args.model)
    text_embedder = via_ours = None
    if args.model == "minilm-l6":
        import keras_hub

        text_embedder = keras_hub.models.TextEmbedder.from_preset(args.model_folder)
        via_ours = keras_sentemb.SentenceEncoder.from_text_embedder(text_embedder)
    tf_bf16 = keras_sentemb.SentenceEncoder.from_pretrained(args.model, dtype="mixed_bfloat16")
    for label, model in (("float32", encoder), ("mixed_bfloat16", tf_bf16)):
        graph = model.embed_fn().get_concrete_function().graph.as_graph_def()
        casts = sum(node.op == "Cast" for node in graph.node)
        print(f"TensorFlow graph of encode, {label}: {len(graph.node)} ops, {casts} of them Cast")
    start = time.perf_counter()
    encoder.encode(calibration[:4], backend="openvino", precision="int8", calibration_texts=calibration)
    print(f"our int8 model: converted and calibrated in {time.perf_counter() - start:.1f} s")
    export_root = os.path.join(REPO, "out", "serving_speed", *suffix)
    saved_model = keras_sentemb.export_saved_model(encoder, os.path.join(export_root, "saved_model"), overwrite=True)

    # (row, model, backend, precision): our encode rows; the TensorFlow bf16 row is the
    # mixed_bfloat16 model at the TensorFlow backend's only precision
    # OpenVINO bfloat16 needs AVX-512 BF16 or AMX (our encode refuses it elsewhere): no such rows then.
    from keras_sentemb.runtime import openvino_cpu_capabilities

    bfloat16 = "BF16" in openvino_cpu_capabilities()[0]
    if not bfloat16:
        print("OpenVINO bfloat16 rows: not measured (this CPU has neither AVX-512 BF16 nor AMX)")
    encode_rows = [
        (name, encoder, backend, precision) for name, backend, precision in OURS if bfloat16 or precision != "bfloat16"
    ]
    encode_rows.append((TF_BF16, tf_bf16, "tensorflow", "float32"))
    if via_ours is not None:
        encode_rows += [
            (name, via_ours, backend, precision)
            for name, backend, precision in HUB_OURS
            if bfloat16 or precision != "bfloat16"
        ]
    rounds, vectors, anchor_info = [], {}, {}
    for number in range(1, args.rounds + 1):
        results = {}
        if args.anchor_python:
            anchor = run_anchor(
                args,
                "measure",
                "--data",
                args.data,
                "--batch-size",
                str(args.batch_size),
                "--latency-sentences",
                str(args.latency_sentences),
            )
            anchor_info = anchor
            results.update({f"sentence-transformers {name}": row for name, row in anchor["modes"].items()})
        for name, model, backend, precision in encode_rows:
            results[name], vectors[name] = measure(
                lambda texts, b, model=model, backend=backend, precision=precision: model.encode(
                    texts, batch_size=b, backend=backend, precision=precision, progress=False
                ),
                sentences,
                args.batch_size,
                args.latency_sentences,
                pairs,
                index,
            )
        if text_embedder is not None:
            results[HUB_PLAIN] = measure_plain_text_embedder(text_embedder, sentences, args.text_embedder_sentences, 20)
        served = saved_model_round(saved_model, args.data, args)
        results[f"keras-sentemb SavedModel float32, requests of {args.request_size}"] = served["requests"]
        results[f"keras-sentemb SavedModel float32, requests of {args.batch_size} in corpus order"] = served[
            "client batches"
        ]
        print(
            f"round {number}: "
            + ", ".join(f"{name.split(',')[-1].strip()} {row['sent_per_s']:.0f}" for name, row in results.items()),
            flush=True,
        )
        rounds.append(results)

    rows = {
        name: {key: statistics.median(r[name][key] for r in rounds) for key in rounds[0][name]} for name in rounds[0]
    }
    torch_rate = rows.get("sentence-transformers torch float32", {}).get("sent_per_s")
    print(f"\n{'config':<70}{'sent/s':>8}{'× ST torch':>11}{'b1 p50':>9}{'b1 p99':>9}{'STS-B':>8}")
    for name, row in rows.items():
        ratio = f"{row['sent_per_s'] / torch_rate:11.2f}" if torch_rate else f"{'n/a':>11}"
        print(
            f"{name:<70}{row['sent_per_s']:8.0f}{ratio}{row['p50_ms']:7.2f}ms{row['p99_ms']:7.2f}ms{row['sts_x100']:8.2f}"
        )
    if anchor_info:
        print(
            f"OpenVINO's CPU default INFERENCE_PRECISION_HINT here: {anchor_info['openvino_cpu_inference_precision_hint']} "
            f"(ST's 'openvino default precision' row computes in it); torch {anchor_info['torch']}, "
            f"{anchor_info['torch_threads']} threads"
        )

    base = vectors["keras-sentemb encode, TensorFlow float32"]
    for name in [row[0] for row in encode_rows if via_ours is None or row[1] is not via_ours]:
        print(f"max |Δ| {name} vs TensorFlow float32 encode: {np.abs(vectors[name] - base).max():.2e}")
    served_vectors = np.load(os.path.join(export_root, "saved_model_vectors.npy"))
    print(f"max |Δ| SavedModel vs TensorFlow float32 encode: {np.abs(served_vectors - base).max():.2e}")
    reference_file = os.path.join(args.anchor_cache, "torch_float32.npy")
    if args.anchor_python and os.path.exists(reference_file):
        print(
            f"max |Δ| TensorFlow float32 encode vs sentence-transformers torch: {np.abs(np.load(reference_file) - base).max():.2e}"
        )

    print("\nacceptance (issues 22, 35, 37, 62):")
    ours = {name: rows[name] for name, _, _ in OURS if name in rows}
    floor = rows["keras-sentemb encode, TensorFlow float32"]["sts_x100"] - 0.3
    good = {name: row for name, row in ours.items() if row["sts_x100"] >= floor}
    best = max(good, key=lambda name: good[name]["sent_per_s"])
    fastest_single = min(good, key=lambda name: good[name]["p50_ms"])
    best_int8 = max((name for name in good if "int8" in name), key=lambda name: good[name]["sent_per_s"], default=None)
    tf32 = rows["keras-sentemb encode, TensorFlow float32"]
    served = rows[f"keras-sentemb SavedModel float32, requests of {args.request_size}"]
    small_requests = rows[f"keras-sentemb SavedModel float32, requests of {args.batch_size} in corpus order"]
    checks = []
    if anchor_info:
        ov_int8 = rows["sentence-transformers openvino static int8"]
        ov_default = rows["sentence-transformers openvino default precision"]
        onnx_int8 = rows["sentence-transformers onnx dynamic int8"]
        bf16 = rows.get("keras-sentemb encode, OpenVINO bfloat16")
        checks += [
            (
                f"best encode mode within 0.3 STS of float ({best}, STS {good[best]['sts_x100']:.2f}) "
                "vs ST OpenVINO static int8 throughput",
                good[best]["sent_per_s"] / ov_int8["sent_per_s"],
                ">= 1.0",
            ),
            (
                f"our {'bfloat16' if bf16 else 'best mode'} vs ST OpenVINO at its default precision "
                f"({anchor_info['openvino_cpu_inference_precision_hint']}) throughput",
                (bf16 or good[best])["sent_per_s"] / ov_default["sent_per_s"],
                ">= 1.0",
            ),
            (
                "batch-1 p50 of the best mode / ST ONNX dynamic int8's",
                good[best]["p50_ms"] / onnx_int8["p50_ms"],
                "<= 1.0",
            ),
            (
                f"issue 62: the lowest batch-1 p50 of a mode within 0.3 STS of float ({fastest_single}) / ST ONNX "
                "dynamic int8's",
                good[fastest_single]["p50_ms"] / onnx_int8["p50_ms"],
                "<= 0.6",
            ),
            (
                f"issue 62: the best int8 throughput within 0.3 STS ({best_int8}) / ST OpenVINO static int8's",
                good[best_int8]["sent_per_s"] / ov_int8["sent_per_s"] if best_int8 else float("nan"),
                ">= 1.8" if args.model == "minilm-l6" else ">= 1.5",  # issue 62: MiniLM 1.8x, MPNet 1.5x
            ),
        ]
    checks += [
        (
            "SavedModel float32 throughput / encode TensorFlow float32",
            served["sent_per_s"] / tf32["sent_per_s"],
            ">= 0.9",
        ),
        (
            f"SavedModel float32 requests of {args.batch_size} (corpus order) / encode TensorFlow float32 "
            f"at batch {args.batch_size} (issue 37)",
            small_requests["sent_per_s"] / tf32["sent_per_s"],
            ">= 0.9",
        ),
        ("SavedModel float32 batch-1 p50 / encode TensorFlow float32", served["p50_ms"] / tf32["p50_ms"], "<= 1.2"),
    ]
    for label, value, target in checks:
        holds = value >= float(target[3:]) if target.startswith(">=") else value <= float(target[3:])
        print(f"  {label}: {value:.2f} (target {target}) -> {'holds' if holds else 'MISSES'}")
    plot(rows, args.plot)
    print(f"plot: {os.path.relpath(args.plot, REPO)}")


if __name__ == "__main__":
    main()
