"""The static-embedding tier against Model2Vec distilled from the same teacher, in one run.

    python benchmarks/static_tier.py --anchor-python .anchor-venv/bin/python
    python benchmarks/static_tier.py --model out/static_encoder/static_encoder.keras --anchor-python ...

Rows: our `StaticEncoder` (`--model`: a zoo name such as "zoo:static-minilm-l6", the default, which
`python -m zoo.recipes build static-minilm-l6 --data DATA` builds into the checkout's zoo, or a
.keras file) and the anchor, Model2Vec 0.10 `distill` of all-MiniLM-L6-v2 (PCA 256, its default SIF
weights), distilled in the anchor interpreter (`make anchor-venv`) into `--work` once (its time is
printed when it runs; `--redistill` runs it again).

1. Quality: the tasks of `keras-sentemb evaluate` (`--tasks`, default stsb, sst2, trec, mrpc) on both
   models' vectors, with the same probes and splits (the anchor's vectors computed by Model2Vec's own
   `encode` on exactly the texts the tasks ask for).
2. Speed, on the distinct sentences of STS-B test in file order: our raw-string SavedModel
   (`export_saved_model`), timed in a fresh TensorFlow process: requests of `--batch-size` (256)
   texts, the median of `--repeats` passes, and batch-1 latency p50 over `--single` texts;
   Model2Vec's own NumPy inference (`StaticModel.encode`) the same way, in the anchor process;
   and our in-process `encode` for reference.

Prints the table, the ratios, the acceptance lines of issue 39, and writes a plot and a JSON.
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
from common import REPO, SHARED_DATA, cpu_flags, machine_description, save_figure  # noqa: E402

ANCHOR = os.path.join(REPO, "benchmarks", "anchors", "model2vec_anchor.py")
SPEED_TARGET = 50_000


def stsb_test_sentences(data):
    """The distinct sentences of STS-B test, in file order."""
    from keras_sentemb.data.named_datasets import read_split

    pairs = read_split(data, "stsb", "test")
    return list(dict.fromkeys(s for pair in zip(pairs.sentences1, pairs.sentences2) for s in pair))


class RecordingEncoder:
    """Wraps an encoder and remembers every text the tasks ask it to embed."""

    def __init__(self, encoder):
        self.encoder = encoder
        self.embedding_dim = encoder.embedding_dim
        self.texts = []

    def encode(self, texts, **kwargs):
        self.texts.extend(texts)
        return self.encoder.encode(texts, **kwargs)


class PrecomputedEncoder:
    """An `encode` that looks up vectors computed elsewhere (the anchor's), one per known text."""

    def __init__(self, texts, vectors):
        self.rows = {text: i for i, text in enumerate(texts)}
        self.vectors = vectors
        self.embedding_dim = vectors.shape[1]

    def encode(self, texts, normalize=True, **_):
        vectors = self.vectors[[self.rows[text] for text in texts]]
        if normalize:
            vectors = vectors / np.maximum(np.linalg.norm(vectors, axis=1, keepdims=True), 1e-12)
        return vectors


def run_anchor(args, task, *extra):
    command = [args.anchor_python, ANCHOR, task, *extra]
    result = subprocess.run(command, capture_output=True, text=True, check=False)
    if result.returncode != 0:
        raise RuntimeError(f"the Model2Vec anchor failed ({task}):\n{result.stderr[-3000:]}")
    return json.loads(result.stdout.strip().splitlines()[-1])


def saved_model_child(args):
    """This file with `--saved-model-child FOLDER`: times the SavedModel in a fresh process."""
    import tensorflow as tf
    import tensorflow_text  # noqa: F401  (registers the tokenizer's ops)

    with open(args.texts, encoding="utf-8") as f:
        texts = json.load(f)
    serve = tf.saved_model.load(args.saved_model_child).signatures["serving_default"]
    batch = args.batch_size
    requests = [tf.constant(texts[i : i + batch]) for i in range(0, len(texts), batch)]
    for request in requests[:3]:
        serve(texts=request)
    rates = []
    for _ in range(args.repeats):
        start = time.perf_counter()
        for request in requests:
            serve(texts=request)["embedding"].numpy()
        rates.append(len(texts) / (time.perf_counter() - start))
    singles = [tf.constant([text]) for text in texts[: args.single]]
    latencies = []
    for single in singles:
        start = time.perf_counter()
        serve(texts=single)["embedding"].numpy()
        latencies.append((time.perf_counter() - start) * 1000)
    print(
        json.dumps(
            {
                "median_sent_per_s": statistics.median(rates),
                "rounds_sent_per_s": rates,
                "batch1_p50_ms": statistics.median(latencies),
            }
        )
    )


def encode_speed(model, texts, args):
    model.encode(texts[: args.batch_size], batch_size=args.batch_size)
    rates = []
    for _ in range(args.repeats):
        start = time.perf_counter()
        model.encode(texts, batch_size=args.batch_size, progress=False)
        rates.append(len(texts) / (time.perf_counter() - start))
    latencies = []
    for text in texts[: args.single]:
        start = time.perf_counter()
        model.encode([text])
        latencies.append((time.perf_counter() - start) * 1000)
    return {"median_sent_per_s": statistics.median(rates), "batch1_p50_ms": statistics.median(latencies)}


def zoo_member_bytes(spec):
    """Bytes of a zoo member's folder (weights, config, card), or None for a .keras file."""
    if not spec.startswith("zoo:"):
        return os.path.getsize(spec)
    folder = os.path.join(REPO, "zoo", spec[len("zoo:") :])
    return sum(os.path.getsize(os.path.join(root, name)) for root, _, names in os.walk(folder) for name in names)


def plot(quality, speeds, path):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import matplotlib.ticker

    fig, (left, right) = plt.subplots(1, 2, figsize=(11, 4))
    tasks = list(quality["ours"])
    x = np.arange(len(tasks))
    left.bar(x - 0.2, [quality["ours"][t] for t in tasks], 0.4, label="keras-sentemb StaticEncoder")
    left.bar(x + 0.2, [quality["model2vec"][t] for t in tasks], 0.4, label="Model2Vec (same teacher)")
    left.set_xticks(x, [t.split(" ")[0] for t in tasks])
    left.set_ylabel("score (STS-B: Spearman x100; others: accuracy %)")
    left.set_ylim(50, 100)
    left.legend(loc="lower right")
    left.set_title("quality")
    names = list(speeds)
    right.barh(names, [speeds[n] for n in names], color=["C0", "C0", "C1"][: len(names)])
    right.axvline(SPEED_TARGET, color="grey", linestyle="--", label=f"target {SPEED_TARGET:,}")
    right.xaxis.set_major_formatter(matplotlib.ticker.FuncFormatter(lambda value, _: f"{value / 1000:.0f}k"))
    right.set_xlabel("sentences/s, batch 256, 2 cores (STS-B test)")
    right.legend(loc="lower right")
    right.set_title("speed")
    save_figure(fig, path)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", default="zoo:static-minilm-l6")
    parser.add_argument("--anchor-python", required="--saved-model-child" not in sys.argv)
    parser.add_argument("--data", default=SHARED_DATA)
    parser.add_argument("--tasks", default="stsb,sst2,trec,mrpc")
    parser.add_argument("--batch-size", type=int, default=256)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--single", type=int, default=500, help="texts timed one at a time")
    parser.add_argument("--work", default=os.path.join(REPO, "out", "static_tier"))
    parser.add_argument("--redistill", action="store_true")
    parser.add_argument("--plot", default=os.path.join(REPO, "out", "benchmarks", "static_tier.png"))
    parser.add_argument("--saved-model-child", help=argparse.SUPPRESS)
    parser.add_argument("--texts", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.saved_model_child:
        return saved_model_child(args)

    from keras_sentemb.evaluation.builtin_tasks import build_tasks
    from keras_sentemb.evaluation.report import evaluate
    from keras_sentemb.export import export_saved_model
    from keras_sentemb.zoo.loading import load_any_encoder

    print(f"machine: {machine_description()}; CPU flags: {cpu_flags()}", flush=True)
    os.makedirs(args.work, exist_ok=True)
    model = load_any_encoder(args.model)
    anchor_folder = os.path.join(args.work, "model2vec-minilm-l6")
    distilled = None
    if args.redistill or not os.path.isdir(anchor_folder):
        distilled = run_anchor(args, "distill", "--out", anchor_folder)
        print(f"Model2Vec distill: {distilled['distill_s']:.0f} s", flush=True)

    # 1. quality
    names = args.tasks.split(",")
    recorder = RecordingEncoder(model)
    ours = evaluate(recorder, build_tasks(names, data=args.data), batch_size=1024)
    texts = list(dict.fromkeys(recorder.texts))
    texts_path = os.path.join(args.work, "task_texts.json")
    with open(texts_path, "w", encoding="utf-8") as f:
        json.dump(texts, f)
    vectors_path = os.path.join(args.work, "model2vec_vectors.npy")
    run_anchor(args, "encode", "--model", anchor_folder, "--texts", texts_path, "--out", vectors_path)
    theirs = evaluate(PrecomputedEncoder(texts, np.load(vectors_path)), build_tasks(names, data=args.data))
    quality = {"ours": {}, "model2vec": {}}
    print(f"\n{'task':<18}{'metric':<14}{'StaticEncoder':>14}{'Model2Vec':>12}{'ours - M2V':>12}")
    for a, b in zip(ours, theirs):
        for metric in a.metrics:
            mine, other = a.metrics[metric], b.metrics[metric]
            print(f"{a.name:<18}{metric:<14}{mine:>14.2f}{other:>12.2f}{mine - other:>+12.2f}")
        label = f"{a.name} {a.main_metric}"
        quality["ours"][label] = a.metrics[a.main_metric]
        quality["model2vec"][label] = b.metrics[b.main_metric]

    # 2. speed
    sentences = stsb_test_sentences(args.data)
    sentences_path = os.path.join(args.work, "stsb_test_sentences.json")
    with open(sentences_path, "w", encoding="utf-8") as f:
        json.dump(sentences, f)
    saved = export_saved_model(model, os.path.join(args.work, "saved_model"), overwrite=True)
    timing = ["--texts", sentences_path, "--batch-size", str(args.batch_size), "--repeats", str(args.repeats)]
    timing += ["--single", str(args.single)]
    child = subprocess.run(
        [sys.executable, os.path.abspath(__file__), "--saved-model-child", saved, *timing],
        capture_output=True,
        text=True,
        check=False,
    )
    if child.returncode != 0:
        raise RuntimeError(f"the SavedModel run failed:\n{child.stderr[-3000:]}")
    served = json.loads(child.stdout.strip().splitlines()[-1])
    anchor_speed = run_anchor(args, "speed", "--model", anchor_folder, *timing)
    encoded = encode_speed(model, sentences, args)
    rows = {
        "StaticEncoder SavedModel (fresh TF process)": served,
        "StaticEncoder encode (in process)": encoded,
        "Model2Vec StaticModel.encode (NumPy)": anchor_speed,
    }
    print(f"\n{len(sentences)} STS-B test sentences, batch {args.batch_size}, median of {args.repeats} passes")
    print(f"{'':<46}{'sent/s':>10}{'batch-1 p50 ms':>16}")
    for name, row in rows.items():
        print(f"{name:<46}{row['median_sent_per_s']:>10,.0f}{row['batch1_p50_ms']:>16.3f}")
    ratio = served["median_sent_per_s"] / anchor_speed["median_sent_per_s"]
    size = zoo_member_bytes(args.model)
    anchor_size = sum(os.path.getsize(os.path.join(anchor_folder, n)) for n in os.listdir(anchor_folder))
    print(f"\nsize: ours {size / 1e6:.1f} MB ({args.model}), Model2Vec folder {anchor_size / 1e6:.1f} MB")

    stsb = next(label for label in quality["ours"] if label.startswith("stsb "))
    print("\nacceptance (issue 39):")
    print(
        f"  STS-B test {quality['ours'][stsb]:.2f} (target >= 76.5) -> {'holds' if quality['ours'][stsb] >= 76.5 else 'MISSES'}"
    )
    for label in quality["ours"]:
        mine, other = quality["ours"][label], quality["model2vec"][label]
        print(f"  {label}: ours {mine:.2f} vs Model2Vec {other:.2f} -> {'holds' if mine >= other else 'MISSES'}")
    rate = served["median_sent_per_s"]
    print(
        f"  SavedModel {rate:,.0f} sent/s at batch {args.batch_size} (target >= {SPEED_TARGET:,}) -> "
        f"{'holds' if rate >= SPEED_TARGET else 'MISSES'}"
    )
    print(f"  SavedModel / Model2Vec NumPy: {ratio:.2f} (target >= 1.0) -> {'holds' if ratio >= 1.0 else 'MISSES'}")

    plot(quality, {name: row["median_sent_per_s"] for name, row in rows.items()}, args.plot)
    result = {
        "machine": machine_description(),
        "cpu_flags": cpu_flags(),
        "model": args.model,
        "quality": quality,
        "speed": rows,
        "saved_model_over_model2vec": ratio,
        "bytes": {"ours": size, "model2vec": anchor_size},
        "model2vec_distill": distilled,
    }
    with open(os.path.join(args.work, "static_tier.json"), "w", encoding="utf-8") as f:
        json.dump(result, f, indent=1)
    print(f"\nwrote {args.plot} and {os.path.join(args.work, 'static_tier.json')}")


if __name__ == "__main__":
    main()
