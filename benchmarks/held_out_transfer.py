"""Do STS-B fine-tunes keep their quality on data they were not trained on? Each student beside its base model.

A student fine-tuned (or distilled) on STS-B train can gain on STS-B and lose elsewhere. This
benchmark measures each `STUDENT=BASE` pair on held-out tasks of `keras-sentemb evaluate`
(`keras_sentemb.evaluation.build_tasks`; by default MRPC, a threshold on the cosine fitted on MRPC
train and measured on MRPC test, and TREC, a logistic-regression probe on the embeddings; `--tasks`
adds SST-2 and the SNLI sample), in the same process, and prints student, base and student / base for each task. A
ratio below 1 on MRPC (cosine, like STS) is the regression the zoo must not ship; the probes say
how much general-purpose information the fine-tune kept.

    python benchmarks/held_out_transfer.py \\
        --pairs zoo:dse-minilm-l6-stsb=minilm-l6,zoo:sbert-minilm-l6-stsb=minilm-l6,zoo:sbert-mpnet-base-stsb=mpnet-base
"""

import argparse
import gc
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from common import SHARED_DATA, machine_description  # noqa: E402

from keras_sentemb.evaluation import build_tasks, evaluate  # noqa: E402
from keras_sentemb.zoo.loading import load_any_encoder  # noqa: E402


def measure(name, data, task_names, seed):
    """{task: (main metric name, value)} of model `name` on `task_names`, and its seconds."""
    start = time.perf_counter()
    model = load_any_encoder(name)
    results = evaluate(model, build_tasks(task_names, data=data, seed=seed), progress=False)
    del model
    gc.collect()
    return {r.name: (r.main_metric, r.metrics[r.main_metric]) for r in results}, time.perf_counter() - start


def number(value):
    """Accuracies and Spearman × 100 with 2 decimals, fractions with 4."""
    return f"{value:.2f}" if abs(value) >= 1.5 else f"{value:.4f}"


def parse_pairs(text):
    """ "A=B,C=D" -> [(A, B), (C, D)]; a clear error on anything else."""
    pairs = []
    for item in text.split(","):
        student, equals, base = item.partition("=")
        if not (equals and student.strip() and base.strip()):
            raise ValueError(f"--pairs: {item!r} is not STUDENT=BASE (e.g. zoo:sbert-mpnet-base-stsb=mpnet-base)")
        pairs.append((student.strip(), base.strip()))
    return pairs


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pairs", required=True, help="comma-separated STUDENT=BASE model names")
    parser.add_argument(
        "--tasks",
        default="mrpc,trec",
        help="held-out tasks of keras-sentemb evaluate (sst2,snli add 67k and 40k sentences: an hour for MPNet)",
    )
    parser.add_argument("--data", default=SHARED_DATA, help="the benchmark data folder (docs/data.md)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the probes' splits")
    args = parser.parse_args()
    pairs, task_names = parse_pairs(args.pairs), args.tasks.split(",")
    print(f"machine: {machine_description()}; data {args.data}; tasks {','.join(task_names)}", flush=True)
    measured = {}
    for name in dict.fromkeys(name for pair in pairs for name in pair):  # each model once, in order
        measured[name], seconds = measure(name, args.data, task_names, args.seed)
        summary = ", ".join(f"{task} {metric} {value:.4g}" for task, (metric, value) in measured[name].items())
        print(f"  {name}: {summary} ({seconds:.0f} s)", flush=True)
    print("\n| student | base | task | metric | student | base | student / base |")
    print("|---|---|---|---|---:|---:|---:|")
    for student, base in pairs:
        for task, (metric, value) in measured[student].items():
            base_value = measured[base][task][1]
            print(
                f"| {student} | {base} | {task} | {metric} | {number(value)} | {number(base_value)} | "
                f"{value / base_value:.4f}{'' if value >= base_value else ' (below its base)'} |"
            )


if __name__ == "__main__":
    main()
