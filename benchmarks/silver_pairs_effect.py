"""What silver pairs (AugSBERT) do for a student: the same fine-tuning with and without them, one run.

Both runs are the student's example (`--student sbert`: `examples/train_sbert_stsb.py`;
`--student dse`: `examples/train_dse.py --task stsb`, distilled from T in both runs) with the same
`--options` (data, seed, schedule); the second adds `--silver-pairs N --teacher T` (pairs mined from
the training sentences of the data folder, never dev or test ones, and scored by the cross-encoder
T; `keras_sentemb.training.silver_pairs`). Printed side by side: STS-B dev Spearman × 100 (which
picks the epoch, and is what a choice between the two runs may read), test Spearman × 100 (for DSE
both the pair head's and the cosine of `encode`), the ratio with / without, and the run's fit
time (the example's `fit_s`: `model.fit` seconds, without data preparation, labelling or evaluation).

    python benchmarks/silver_pairs_effect.py --teacher zoo:cross-encoder-mpnet-base-stsb \\
        --silver-pairs 6000 --options "--lora-rank 32 --lora-targets all --learning-rate 3e-4"
    python benchmarks/silver_pairs_effect.py --student dse --teacher zoo:cross-encoder-mpnet-base-stsb \\
        --options "--lora-rank 32 --lora-targets all --learning-rate 3e-4 --cosine-weight 1"

`--reuse` takes a run whose folder already holds its finished result (`result.json`, written here
after the run) instead of training it again; `--silver-run DIR` reads the gold + silver run from a
finished run of the same command made elsewhere (the zoo build's `out/zoo_build/dse-minilm-l6-stsb`:
the JSON line that ends its `train.log`, its `training_clock.json`).
"""

import argparse
import json
import os
import shlex
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from common import REPO, SHARED_DATA, machine_description, run_example_streaming  # noqa: E402

from keras_sentemb.utils.atomic_files import atomic_open  # noqa: E402
from keras_sentemb.utils.checked_files import last_json_line, read_json  # noqa: E402

# student -> (its example, the arguments both runs add, how its JSON line reads: dev and test
# Spearman, and for DSE, whose head scores pairs, also the cosine of `encode` on dev and test)
STUDENTS = {
    "sbert": (
        "train_sbert_stsb.py",
        lambda teacher: [],
        lambda r: (r["stsb_dev_spearman"], r["stsb_test_spearman"], None, None),
    ),
    "dse": (
        "train_dse.py",
        lambda teacher: ["--task", "stsb", "--teacher", teacher],
        lambda r: (
            r["dev_spearman"],
            r["student"]["spearman"],
            r["dev_cosine_spearman"],
            r["student"]["cosine_spearman"],
        ),
    ),
}


def silver_report(lines):
    """The example's "silver pairs: …" line (None for a run without them)."""
    return next((line.strip() for line in lines if line.startswith("silver pairs:")), None)


def finished_run(folder, silver_pairs):
    """The result of a finished run of an example in `folder` (its train.log's last JSON line) and
    its silver-pairs report, checked to be a run with `silver_pairs` silver pairs."""
    log = os.path.join(folder, "train.log")
    with open(log, encoding="utf-8") as f:
        lines = f.readlines()
    result = last_json_line(lines, log)
    if result is None or result.get("silver_pairs") != silver_pairs:
        raise ValueError(f"{log}: no finished run with {silver_pairs} silver pairs at its end")
    print(f"[gold + silver] reading the finished run in {folder}", flush=True)
    return result, silver_report(lines)


def train(script, options, output, label, reuse):
    """Runs examples/`script` with `options` into `output` (or reads its finished result there with
    `reuse`); returns its JSON line as a dict and its report of the silver pairs (None without
    them)."""
    finished = os.path.join(output, "result.json")
    if reuse and os.path.isfile(finished):
        print(f"[{label}] reusing the finished run in {output}", flush=True)
        saved = read_json(finished)
        return saved["result"], saved["silver"]
    result, lines, _ = run_example_streaming(script, [*options, "--output", output], label)
    silver = silver_report(lines)
    with atomic_open(finished, "w") as f:
        json.dump({"result": result, "silver": silver}, f)
    return result, silver


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", default=SHARED_DATA, help="the benchmark data folder (docs/data.md)")
    parser.add_argument("--teacher", required=True, help="the cross-encoder (zoo:NAME or a .keras file)")
    parser.add_argument("--silver-pairs", type=int, default=6000)
    parser.add_argument("--options", default="", help="options of train_sbert_stsb.py shared by both runs")
    parser.add_argument("--student", choices=sorted(STUDENTS), default="sbert")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--reuse", action="store_true", help="read runs that finished before instead of training")
    parser.add_argument("--silver-run", default=None, help="a finished gold + silver run's folder to read")
    parser.add_argument("--work", default=os.path.join(REPO, "out", "benchmarks", "silver_pairs_effect"))
    args = parser.parse_args()
    script, student_arguments, read = STUDENTS[args.student]
    shared = [
        "--data",
        args.data,
        "--seed",
        str(args.seed),
        *student_arguments(args.teacher),
        *shlex.split(args.options),
    ]
    # a DSE run depends on its teacher even without silver pairs: one folder per teacher
    teacher_name = os.path.basename(args.teacher.replace("zoo:", "")).removesuffix(".keras")
    work = os.path.join(args.work, f"dse-{teacher_name}") if args.student == "dse" else args.work
    gold = train(script, shared, os.path.join(work, "gold"), "gold only", args.reuse)
    silver = (
        finished_run(args.silver_run, args.silver_pairs)
        if args.silver_run
        else train(
            script,
            [
                *shared,
                *([] if args.student == "dse" else ["--teacher", args.teacher]),
                "--silver-pairs",
                str(args.silver_pairs),
            ],
            os.path.join(work, f"silver{args.silver_pairs}"),
            "gold + silver",
            args.reuse,
        )
    )
    print(
        f"\n{args.student.upper()} on STS-B train {args.options or '(defaults)'}, seed {args.seed}; {machine_description()}"
    )
    print(f"teacher {args.teacher}; {silver[1]}\n")
    cosine = args.student == "dse"
    print(
        "| training pairs | dev Spearman | test Spearman | test × gold only |"
        + (" dev cosine Spearman | test cosine Spearman |" if cosine else "")
        + " fit time |"
    )
    print("|---|---:|---:|---:|" + ("---:|---:|" if cosine else "") + "---:|")
    gold_test = read(gold[0])[1]
    for name, (result, _) in (("STS-B train (gold)", gold), (f"gold + {args.silver_pairs:,} silver", silver)):
        dev, test, dev_cosine, test_cosine = read(result)
        print(
            f"| {name} | {dev:.2f} | {test:.2f} | {test / gold_test:.4f} |"
            + (f" {dev_cosine:.2f} | {test_cosine:.2f} |" if cosine else "")
            + f" {result['fit_s'] / 60:.1f} min |"
        )
    if cosine:
        print("(dev and test Spearman: the pair head, predict_pairs; cosine: of encode's unit vectors)")


if __name__ == "__main__":
    main()
