"""What silver pairs (AugSBERT) do for SBERT: the same fine-tuning with and without them, one run.

Both runs are `examples/train_sbert_stsb.py` with the same `--options` (data, seed, schedule);
the second adds `--silver-pairs N --teacher T` (pairs mined from the training sentences of the
data folder, never dev or test ones, and scored by the cross-encoder T;
`keras_sentemb.training.silver_pairs`). Printed side by side: STS-B dev (which picks the epoch)
and test Spearman × 100, train time, and the ratio with / without.

    python benchmarks/silver_pairs_effect.py --teacher zoo:cross-encoder-mpnet-base-stsb \\
        --silver-pairs 6000 --options "--lora-rank 32 --lora-targets all --learning-rate 3e-4"
"""

import argparse
import os
import shlex
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from common import REPO, SHARED_DATA, machine_description, run_example_streaming  # noqa: E402


def train(options, label):
    """Runs train_sbert_stsb.py with `options`; returns its JSON line (plus `train_seconds`) and
    its report of the silver pairs (None without them)."""
    result, lines, seconds = run_example_streaming("train_sbert_stsb.py", options, label)
    result["train_seconds"] = seconds
    silver = next((line.strip() for line in lines if line.startswith("silver pairs:")), None)
    return result, silver


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", default=SHARED_DATA, help="the benchmark data folder (docs/data.md)")
    parser.add_argument("--teacher", required=True, help="the cross-encoder (zoo:NAME or a .keras file)")
    parser.add_argument("--silver-pairs", type=int, default=6000)
    parser.add_argument("--options", default="", help="options of train_sbert_stsb.py shared by both runs")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--work", default=os.path.join(REPO, "out", "benchmarks", "silver_pairs_effect"))
    args = parser.parse_args()
    shared = ["--data", args.data, "--seed", str(args.seed), *shlex.split(args.options)]
    gold, _ = train([*shared, "--output", os.path.join(args.work, "gold")], "gold only")
    silver, report = train(
        [
            *shared,
            "--output",
            os.path.join(args.work, f"silver{args.silver_pairs}"),
            "--teacher",
            args.teacher,
            "--silver-pairs",
            str(args.silver_pairs),
        ],
        "gold + silver",
    )
    print(f"\nSBERT on STS-B train {args.options or '(defaults)'}, seed {args.seed}; {machine_description()}")
    print(f"teacher {args.teacher}; {report}\n")
    print("| training pairs | dev Spearman | test Spearman | test × gold only | train time |")
    print("|---|---:|---:|---:|---:|")
    for name, result in (("STS-B train (gold)", gold), (f"gold + {args.silver_pairs:,} silver", silver)):
        ratio = result["stsb_test_spearman"] / gold["stsb_test_spearman"]
        print(
            f"| {name} | {result['stsb_dev_spearman']:.2f} | {result['stsb_test_spearman']:.2f} | {ratio:.4f} | "
            f"{result['train_seconds'] / 60:.1f} min |"
        )


if __name__ == "__main__":
    main()
