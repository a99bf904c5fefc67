"""The DSE teacher against sentence-transformers' CrossEncoder, trained on the same data in one run.

Anchor: sentence-transformers' CrossEncoder STS-B recipe on the same all-MiniLM-L6-v2 weights
(4 epochs, batch 16, AdamW 2e-5, 10 % warm-up, BCE on score / 5, best dev epoch kept), in the
anchor venv. Ours: `examples/train_cross_encoder.py --task stsb` with each `--ours` option set
(same data, same batch, learning rate and schedule, best dev epoch kept). Both are scored on
STS-B dev and test (Spearman × 100 of the pair scores) and timed: training seconds, and scoring
pairs/s over the STS-B test pairs (batch 32). `--ours-run FOLDER` adds a run finished earlier
on this machine (a zoo build's training folder) without training it again.

    python benchmarks/cross_encoder_teacher.py --anchor-python .anchor-venv/bin/python \\
        --ours "--loss bce" --ours "--loss bce --lora-rank 32"
    python benchmarks/cross_encoder_teacher.py --model mpnet-base --anchor-python .anchor-venv/bin/python \\
        --anchor-bf16 --ours-run out/zoo_build/cross-encoder-mpnet-base-stsb
"""

import argparse
import json
import os
import shlex
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import keras  # noqa: E402
from common import REPO, SHARED_DATA, machine_description, run_anchor, run_example_streaming  # noqa: E402

from keras_sentemb.data.named_datasets import read_split  # noqa: E402
from keras_sentemb.pretrained.pretrained_weights import resolve_pretrained_dir  # noqa: E402
from keras_sentemb.utils.checked_files import read_json  # noqa: E402


def train_ours(model, options, data, work, epochs, reuse):
    """Runs the example with `options` (or, with `reuse`, takes its finished run); returns its
    result and the saved model's path."""
    output = os.path.join(work, f"ours-{model}-" + ("_".join(options).replace("-", "") or "default"))
    saved, finished = os.path.join(output, "cross_encoder.keras"), os.path.join(output, "result.json")
    if reuse and os.path.isfile(saved) and os.path.isfile(finished):
        print(f"[{shlex.join(options)}] reusing the finished run in {output}", flush=True)
        result = read_json(finished)
    else:
        arguments = ["--task", "stsb", "--model", model, "--data", data, "--epochs", str(epochs), "--output", output]
        result, _, _ = run_example_streaming("train_cross_encoder.py", [*arguments, *options], shlex.join(options))
    result["train_seconds"] = result["fit_s"]
    return result, saved


def pairs_per_second(path, pairs):
    model = keras.saving.load_model(path)
    model.predict_pairs(pairs.sentences1[:64], pairs.sentences2[:64], batch_size=32, progress=False)  # traces
    start = time.perf_counter()
    model.predict_pairs(pairs.sentences1, pairs.sentences2, batch_size=32, progress=False)
    return len(pairs) / (time.perf_counter() - start)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", default=SHARED_DATA, help="the benchmark data folder (docs/data.md)")
    parser.add_argument("--model", default="minilm-l6", help="the pretrained weights both start from")
    parser.add_argument("--epochs", type=int, default=4)
    parser.add_argument("--ours", action="append", default=None, help="options of train_cross_encoder.py (repeatable)")
    parser.add_argument("--anchor-python", default=None)
    parser.add_argument("--anchor-bf16", action="store_true", help="the anchor trains under bfloat16 autocast")
    parser.add_argument("--reuse", action="store_true", help="reuse finished runs of ours (their result.json)")
    parser.add_argument(
        "--ours-run",
        action="append",
        default=[],
        metavar="FOLDER",
        help="(repeatable) also report a finished run of train_cross_encoder.py, e.g. a zoo build's "
        "out/zoo_build/NAME (its cross_encoder.keras and result.json; it was trained on this machine)",
    )
    parser.add_argument("--work", default=os.path.join(REPO, "out", "benchmarks", "cross_encoder_teacher"))
    args = parser.parse_args()
    os.makedirs(args.work, exist_ok=True)
    test = read_split(args.data, "stsb", "test")
    rows = []
    for folder in args.ours_run:
        result = read_json(os.path.join(folder, "result.json"))
        labeller = f", silver labeller {result['silver_labeller']}" if result.get("silver_pairs") else ""
        rows.append(
            (
                f"keras-sentemb CrossEncoder, the run in {os.path.relpath(folder, REPO)} "
                f"({result['epochs']} epochs, {result.get('silver_pairs', 0)} silver pairs{labeller})",
                result["stsb_dev_spearman"],
                result["stsb_test_spearman"],
                result["fit_s"],
                pairs_per_second(os.path.join(folder, "cross_encoder.keras"), test),
            )
        )
        print(json.dumps({"ours_run": folder, **result}), flush=True)
    for options in args.ours or ([] if args.ours_run else ["--loss bce"]):
        result, path = train_ours(args.model, shlex.split(options), args.data, args.work, args.epochs, args.reuse)
        rows.append(
            (
                f"keras-sentemb CrossEncoder {options}",
                result["stsb_dev_spearman"],
                result["stsb_test_spearman"],
                result["train_seconds"],
                pairs_per_second(path, test),
            )
        )
        print(json.dumps({"ours": options, **result}), flush=True)
    anchor = run_anchor(
        args.anchor_python,
        "cross-encoder",
        os.path.join(args.data, "stsb", "train.tsv"),
        [
            "--epochs",
            str(args.epochs),
            "--model-folder",
            str(resolve_pretrained_dir(args.model)),
            *(["--bf16"] if args.anchor_bf16 else []),
        ],
    )
    if anchor is not None:
        print(json.dumps({"anchor": anchor}), flush=True)
        rows.append(
            (
                "sentence-transformers CrossEncoder (anchor)",
                anchor["dev_spearman"],
                anchor["test_spearman"],
                anchor["train_seconds"],
                anchor["score_pairs_per_s"],
            )
        )
    print(f"\nSTS-B, {args.model}, {args.epochs} epochs, batch 16, best dev epoch kept; {machine_description()}\n")
    print("| model | dev Spearman | test Spearman | × anchor (test) | train time | scoring pairs/s | × anchor |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for name, dev, test_spearman, seconds, rate in rows:
        ratio = f"{test_spearman / anchor['test_spearman']:.3f}" if anchor else "—"
        speed = f"{rate / anchor['score_pairs_per_s']:.2f}" if anchor else "—"
        print(f"| {name} | {dev:.2f} | {test_spearman:.2f} | {ratio} | {seconds / 60:.1f} min | {rate:.0f} | {speed} |")


if __name__ == "__main__":
    main()
