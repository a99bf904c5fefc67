"""Speed of the newer families at their real sizes: keras-sentemb against sentence-transformers on the same
folders, one interleaved run.

The released weights of EmbeddingGemma-300m, Qwen3-Embedding-0.6B, gte-modernbert-base, gte-Qwen2-1.5B-instruct
and sentence-t5-base are not installable here; speed does not depend on the weights' values, so the folders have the released configs and modules with
random weights. They are built once into `--cache` (out/family_speed):
1. `tests/fixtures/st_folders/make_folders.py real-size-tokenizers` trains each family's tokenizer shape with
   32,000 entries on STS-B train sentences and NFCorpus passages (English token counts like the real
   tokenizers'; the embedding tables keep the released vocabulary sizes); T5's SentencePiece Unigram (32,000
   pieces, T5's ids) is trained in the anchor venv in step 2, where sentencepiece and transformers' converter are;
2. `benchmarks/anchors/family_folders.py real` (anchor venv) adds the models: transformers' own classes and
   initialisation, the released config.json values, and the sentence-transformers modules (Pooling, Dense,
   Normalize, prompts).

Workloads, the same texts for every row:
- sentences: `--sentences` (256) unique STS-B test sentences (a seeded random sample), batch `--batch-size` (32);
- passages: `--passages` (32) NFCorpus texts cut at 512 tokens of the model's tokenizer, batch 32;
- batch-1 latency: p50 / p99 over `--latency` (30) STS-B sentences one at a time (raw text in, vector out);
- long inputs (ModernBERT): `--long` (8) texts of 2,048 tokens at batch 8 against their 32 pieces of 512
  tokens at batch 32 — the same tokens; local attention is what keeps the long texts near the pieces' cost;
- peak memory: every (model, mode) runs in a process of its own; its `ru_maxrss`.

Modes: ours `encode` at TensorFlow float32 and OpenVINO float32 / bfloat16 / int8 (int8 calibrated on 300
SST-2 sentences; texts over 128 tokens run at float32, so passages are float32 there); sentence-transformers
torch float32 and OpenVINO (its export at OpenVINO's default CPU precision — bf16 where the CPU has it — and
at f32). Quality at random weights is no STS score: each mode's sentence vectors are compared with
sentence-transformers torch float32's (max |Δ| and the smallest cosine). "Equal quality" for the acceptance
ratio: the cosine ≥ 0.99 to float32 that the bfloat16 rows keep.

    python benchmarks/family_speed.py --anchor-python .anchor-venv/bin/python
    python benchmarks/family_speed.py --anchor-python .anchor-venv/bin/python --models gte-modernbert-base
    python benchmarks/family_speed.py --report   # the tables and plot of results.json again

`results.json` keeps each model's latest run with the machine it ran on (the three take about half an hour:
they may run apart); the tables and plot show every model in it.
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
from anchors.family_speed_anchor import time_workload  # noqa: E402  (NumPy only at import)
from common import REPO, SHARED_DATA, cpu_flags, default_stsb_test, machine_description, save_figure  # noqa: E402

MODELS = (
    "embeddinggemma-300m",
    "qwen3-embedding-0.6b",
    "gte-modernbert-base",
    "gte-qwen2-1.5b-instruct",
    "sentence-t5-base",
)
TOKENIZER_OF = {
    "embeddinggemma-300m": "gemma3",
    "qwen3-embedding-0.6b": "qwen3",
    "gte-modernbert-base": "modernbert",
    "gte-qwen2-1.5b-instruct": "qwen3",
    "sentence-t5-base": "t5",
}
OURS = {
    "keras-sentemb TensorFlow float32": ("tensorflow", "float32"),
    "keras-sentemb OpenVINO float32": ("openvino", "float32"),
    "keras-sentemb OpenVINO bfloat16": ("openvino", "bfloat16"),
    "keras-sentemb OpenVINO int8": ("openvino", "int8"),
}
THEIRS = {
    "sentence-transformers torch float32": "torch",
    "sentence-transformers OpenVINO default precision": "openvino",
    "sentence-transformers OpenVINO float32": "openvino-f32",
}
REFERENCE = "sentence-transformers torch float32"
ANCHOR = os.path.join(REPO, "benchmarks", "anchors", "family_speed_anchor.py")
MAKE_FOLDERS = os.path.join(REPO, "tests", "fixtures", "st_folders", "make_folders.py")
FAMILY_FOLDERS = os.path.join(REPO, "benchmarks", "anchors", "family_folders.py")


def run(command, label):
    """Runs `command`, returns its last stdout line as JSON; a failure names `label` and shows stderr. A child the
    system killed (SIGKILL: out of memory on this machine; gte-Qwen2-1.5B's int8 calibration on 24 GB) is a row
    not measured, `{"unavailable": why}`, and the other modes still run."""
    result = subprocess.run(command, capture_output=True, text=True, check=False)
    if result.returncode == -9:
        return {"unavailable": "killed by the system (SIGKILL: out of memory on this machine)"}
    if result.returncode != 0:
        raise RuntimeError(f"{label} failed (exit {result.returncode}):\n{result.stderr[-3000:]}")
    return json.loads(result.stdout.strip().splitlines()[-1])


def build_folders(args):
    """The real-size folders in `args.cache`/folders/<model>, built once."""
    folders = {name: os.path.join(args.cache, "folders", name) for name in args.models}
    missing = [name for name, folder in folders.items() if not os.path.exists(os.path.join(folder, "modules.json"))]
    if not missing:
        return folders
    tokenizers = os.path.join(args.cache, "tokenizers")
    texts = os.path.join(args.cache, "tokenizer_texts.txt")
    if not os.path.exists(texts):
        with open(texts, "w", encoding="utf-8") as f:
            f.write("\n".join(training_texts()) + "\n")
    if not os.path.exists(os.path.join(tokenizers, "modernbert", "tokenizer.json")):
        subprocess.run([sys.executable, MAKE_FOLDERS, "real-size-tokenizers", tokenizers, texts], check=True)
    start = time.perf_counter()
    subprocess.run(
        [
            args.anchor_python,
            FAMILY_FOLDERS,
            "real",
            "--tokenizers",
            tokenizers,
            "--texts",
            texts,
            "--output",
            os.path.join(args.cache, "folders"),
            "--only",
            *missing,
        ],
        check=True,
    )
    print(f"built {', '.join(missing)} in {time.perf_counter() - start:.0f} s")
    return folders


def training_texts():
    from keras_sentemb.data.beir_folder import read_beir_folder
    from keras_sentemb.data.table_reader import read_table

    columns, _ = read_table(os.path.join(SHARED_DATA, "stsb", "train.tsv"), {"sentence1": ("sentence1", str)})
    corpus = read_beir_folder(os.path.join(SHARED_DATA, "beir", "nfcorpus"))
    return list(columns["sentence1"]) + list(corpus.documents)


def cut_at_tokens(tokenizer, text, tokens):
    """The longest prefix of `text` holding at most `tokens` tokens of `tokenizer` (its special tokens not
    counted), cut where a token ends."""
    encoding = tokenizer.encode(text, add_special_tokens=False)
    if len(encoding.ids) <= tokens:
        return text
    return text[: encoding.offsets[tokens - 1][1]]


def workload(args, folder):
    """The texts every row of one model encodes (see the module docstring)."""
    from tokenizers import Tokenizer

    from keras_sentemb.data.beir_folder import read_beir_folder
    from keras_sentemb.data.examples import read_scored_pairs

    tokenizer = Tokenizer.from_file(os.path.join(folder, "tokenizer.json"))
    specials = len(tokenizer.encode("a").ids) - len(tokenizer.encode("a", add_special_tokens=False).ids)
    pairs = read_scored_pairs(args.data)
    sentences = sorted(set(pairs.sentences1) | set(pairs.sentences2))
    sentences = [sentences[i] for i in np.random.default_rng(0).permutation(len(sentences))]  # not A-to-Z
    documents = read_beir_folder(os.path.join(SHARED_DATA, "beir", "nfcorpus")).documents

    def texts_of(tokens, count, start=0):
        """`count` texts of `tokens` tokens (specials included): documents joined until long enough, cut."""
        texts, buffer = [], ""
        for document in documents[start:]:
            buffer = f"{buffer} {document}".strip()
            if len(tokenizer.encode(buffer, add_special_tokens=False).ids) >= tokens:
                texts.append(cut_at_tokens(tokenizer, buffer, tokens - specials))
                buffer = ""
                if len(texts) == count:
                    return texts
        raise ValueError(f"NFCorpus holds fewer than {count} texts of {tokens} tokens")

    work = {
        "batch_size": args.batch_size,
        "sentences": sentences[: args.sentences],
        "passages": texts_of(512, args.passages),
        "latency": sentences[args.sentences : args.sentences + args.latency],
    }
    if TOKENIZER_OF[os.path.basename(folder)] == "modernbert" and args.long:
        long_texts = texts_of(2048, args.long, start=len(documents) // 2)
        pieces = []
        for text in long_texts:
            rest = text
            for _ in range(4):
                piece = cut_at_tokens(tokenizer, rest, 512 - specials)
                pieces.append(piece)
                rest = rest[len(piece) :].strip()
        work.update(long_texts=long_texts, long_pieces=pieces, long_batch_size=args.long)
    lengths = {
        key: statistics.mean(len(tokenizer.encode(text).ids) for text in work[key])
        for key in ("sentences", "passages", "long_texts", "long_pieces")
        if key in work
    }
    return work, lengths


def calibration_sentences(count):
    from keras_sentemb.data.table_reader import read_table

    columns, _ = read_table(os.path.join(SHARED_DATA, "sst2", "train.tsv"), {"sentence": ("sentence", str)})
    return columns["sentence"][:count]


def child(args):
    """One of our rows, in a process of its own: `--child FOLDER BACKEND PRECISION`."""
    from keras_sentemb import SentenceEncoder

    folder, backend, precision = args.child
    with open(args.workload, encoding="utf-8") as f:
        work = json.load(f)
    start = time.perf_counter()
    encoder = SentenceEncoder.from_pretrained(folder)
    load_s = time.perf_counter() - start
    options = dict(backend=backend, precision=precision, progress=False)
    if precision == "int8":
        options["calibration_texts"] = calibration_sentences(300)

    def encode(texts, batch_size):
        return encoder.encode(texts, batch_size=batch_size, **options)

    result, vectors = time_workload(encode, work)
    np.save(args.vectors, vectors)
    result["load_s"] = load_s
    print(json.dumps(result))


def measure_round(args, name, folder, workload_file, out):
    """Every mode of one model once, each in its own process, sentence-transformers' torch first."""
    results = {}
    for label, mode in THEIRS.items():
        if args.anchor_python:
            results[label] = run(
                [
                    args.anchor_python,
                    ANCHOR,
                    "--folder",
                    folder,
                    "--mode",
                    mode,
                    "--workload",
                    workload_file,
                    "--output",
                    out,
                ],
                f"{label} on {name}",
            )
            if "unavailable" in results[label]:
                print(f"  {label}: not measured — {results.pop(label)['unavailable']}", flush=True)
                continue
            results[label]["vectors"] = os.path.join(out, f"{mode}.npy")
    for label, (backend, precision) in OURS.items():
        if precision == "bfloat16" and not args.bfloat16:
            continue
        vectors = os.path.join(out, f"ours_{backend}_{precision}.npy")
        results[label] = run(
            [
                sys.executable,
                os.path.abspath(__file__),
                "--child",
                folder,
                backend,
                precision,
                "--workload",
                workload_file,
                "--vectors",
                vectors,
            ],
            f"{label} on {name}",
        )
        if "unavailable" in results[label]:
            print(f"  {label}: not measured — {results.pop(label)['unavailable']}", flush=True)
            continue
        results[label]["vectors"] = vectors
    return results


def quality(rows, reference_label):
    """Per row: max |Δ| and smallest cosine of its sentence vectors to the reference row's."""
    reference = np.load(rows[reference_label]["vectors"])
    for row in rows.values():
        vectors = np.load(row["vectors"])
        cosine = np.sum(vectors * reference, 1) / np.linalg.norm(vectors, axis=1) / np.linalg.norm(reference, axis=1)
        row["max_abs_diff"] = float(np.abs(vectors - reference).max())
        row["min_cosine"] = float(cosine.min())


def plot(tables, path):
    """Per model, sentences/s and passages/s of every row (bars), ours blue, sentence-transformers grey."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(len(tables), 2, figsize=(12, 2.6 * len(tables)), squeeze=False)
    for (name, rows), (sentence_ax, passage_ax) in zip(tables.items(), axes):
        labels = list(rows)
        colours = ["#888" if label.startswith("sentence-transformers") else "#3b7dd8" for label in labels]
        short = [label.replace("sentence-transformers", "ST").replace("keras-sentemb ", "") for label in labels]
        for ax, key, unit in (
            (sentence_ax, "sent_per_s", "STS-B sentences/s"),
            (passage_ax, "passages_per_s", "512-token passages/s"),
        ):
            values = [rows[label][key] for label in labels]
            ax.barh(range(len(labels)), values, color=colours)
            for position, value in enumerate(values):
                ax.annotate(
                    f"{value:.1f}" if value >= 10 else f"{value:.2f}",
                    (value, position),
                    xytext=(3, -3),
                    textcoords="offset points",
                    fontsize=7,
                )
            ax.set_yticks(range(len(labels)), short if ax is sentence_ax else [""] * len(labels), fontsize=7)
            ax.set_xlabel(f"{unit} at batch 32 (higher is better)", fontsize=8)
            ax.set_title(name, fontsize=9)
            ax.margins(x=0.15)
    fig.suptitle(
        "2025 families at real size (random weights), 2 CPU cores: keras-sentemb (blue), sentence-transformers (grey)"
    )
    fig.tight_layout()
    save_figure(fig, path)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--anchor-python", default=None)
    parser.add_argument("--models", nargs="*", default=list(MODELS), choices=MODELS)
    parser.add_argument("--cache", default=os.path.join(REPO, "out", "family_speed"))
    parser.add_argument("--data", default=default_stsb_test())
    parser.add_argument("--batch-size", type=int, default=32)
    parser.add_argument("--sentences", type=int, default=256)
    parser.add_argument("--passages", type=int, default=32)
    parser.add_argument("--latency", type=int, default=30)
    parser.add_argument("--long", type=int, default=8)
    parser.add_argument("--rounds", type=int, default=1)
    parser.add_argument("--plot", default=os.path.join(REPO, "out", "benchmarks", "family_speed.png"))
    parser.add_argument("--child", nargs=3, help=argparse.SUPPRESS)
    parser.add_argument("--workload", help=argparse.SUPPRESS)
    parser.add_argument("--vectors", help=argparse.SUPPRESS)
    parser.add_argument(
        "--report", action="store_true", help="print the tables and plot of results.json, measure nothing"
    )
    args = parser.parse_args()
    if args.child:
        return child(args)
    if args.report:
        with open(os.path.join(args.cache, "results.json"), encoding="utf-8") as f:
            tables = json.load(f)
        for name, rows in tables.items():
            print(f"\n{name} (on {machine_of(rows)}):")
            report(name, rows)
        return plot(tables, args.plot)
    if not args.anchor_python:
        parser.error("--anchor-python is needed: the folders are built with transformers (make anchor-venv)")
    from keras_sentemb.runtime import openvino_cpu_capabilities

    args.bfloat16 = "BF16" in openvino_cpu_capabilities()[0]
    machine = f"{machine_description()}; CPU flags: {cpu_flags()}"
    print(f"machine: {machine}")
    os.makedirs(args.cache, exist_ok=True)
    folders = build_folders(args)
    tables = {}
    for name in args.models:
        out = os.path.join(args.cache, "runs", name)
        os.makedirs(out, exist_ok=True)
        work, lengths = workload(args, folders[name])
        workload_file = os.path.join(out, "workload.json")
        with open(workload_file, "w", encoding="utf-8") as f:
            json.dump(work, f)
        print(
            f"\n{name}: mean tokens per text "
            + ", ".join(f"{key} {value:.1f}" for key, value in lengths.items())
            + f"; {args.rounds} round(s), each mode in its own process",
            flush=True,
        )
        rounds = [measure_round(args, name, folders[name], workload_file, out) for _ in range(args.rounds)]
        rows = {
            label: {
                key: statistics.median(r[label][key] for r in rounds) if key != "vectors" else rounds[-1][label][key]
                for key in rounds[0][label]
            }
            for label in rounds[0]
        }
        quality(rows, REFERENCE)
        for row in rows.values():
            row["machine"] = machine
        tables[name] = rows
        report(name, rows)
    # results.json keeps each model's latest run (the models take an hour together: they may run apart)
    results = os.path.join(args.cache, "results.json")
    earlier = {}
    if os.path.exists(results):
        with open(results, encoding="utf-8") as f:
            earlier = {name: rows for name, rows in json.load(f).items() if name in MODELS and name not in tables}
    for name, rows in earlier.items():
        print(f"\n{name} (earlier run, on {machine_of(rows)}):")
        report(name, rows)
    merged = {**earlier, **tables}
    tables = {name: merged[name] for name in MODELS if name in merged}
    plot(tables, args.plot)
    with open(results + ".tmp", "w", encoding="utf-8") as f:
        json.dump(tables, f, indent=1)
    os.replace(results + ".tmp", results)
    print(f"\nplot: {os.path.relpath(args.plot, REPO)}; numbers: {os.path.relpath(results, REPO)}")


def machine_of(rows):
    """The machine a model's rows were measured on, as results.json records it."""
    return next(iter(rows.values())).get("machine", "a machine not recorded")


def report(name, rows):
    print(
        f"{'config':<52}{'sent/s':>8}{'pass/s':>8}{'b1 p50':>9}{'peak MB':>9}{'max|Δ|':>10}{'min cos':>9}"
        + (f"{'2048 vs 4×512':>15}" if any("long_s" in row for row in rows.values()) else "")
    )
    for label, row in rows.items():
        long = f"{row['long_s'] / row['pieces_s']:15.2f}" if "long_s" in row else ""
        print(
            f"{label:<52}{row['sent_per_s']:8.1f}{row['passages_per_s']:8.2f}{row['p50_ms']:7.1f}ms"
            f"{row['peak_rss_mb']:9.0f}{row['max_abs_diff']:10.1e}{row['min_cosine']:9.4f}{long}"
        )
    good = {label: row for label, row in rows.items() if row["min_cosine"] >= 0.99}
    ours = {label: row for label, row in good.items() if label.startswith("keras-sentemb")}
    theirs = {label: row for label, row in good.items() if label.startswith("sentence-transformers")}
    for key, unit in (("sent_per_s", "sentences"), ("passages_per_s", "passages")):
        best_ours = max(ours, key=lambda label: ours[label][key])
        best_theirs = max(theirs, key=lambda label: theirs[label][key])
        ratio = ours[best_ours][key] / theirs[best_theirs][key]
        print(
            f"  {unit}: our best at cosine ≥ 0.99 ({best_ours}) / sentence-transformers' best ({best_theirs}): "
            f"{ratio:.2f} (target >= 1.0) -> {'holds' if ratio >= 1.0 else 'MISSES'}"
        )
    best_ours = min(ours, key=lambda label: ours[label]["p50_ms"])
    best_theirs = min(theirs, key=lambda label: theirs[label]["p50_ms"])
    print(
        f"  batch-1 p50: ours {ours[best_ours]['p50_ms']:.1f} ms ({best_ours}) vs sentence-transformers' "
        f"{theirs[best_theirs]['p50_ms']:.1f} ms ({best_theirs})"
    )


if __name__ == "__main__":
    main()
