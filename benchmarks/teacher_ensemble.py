"""Is the mean of two pair scorers a better teacher than either? STS-B dev and test, side by side.

A DSE student learns from its teacher's scores, so the teacher is chosen on STS-B dev like any
other model. This benchmark scores STS-B dev and test with each `--member` (a cross-encoder
`zoo:NAME` / `.keras` file, or `cosine:ENCODER` for a bi-encoder's cosine, `CosinePairScorer`)
and with their mean (`MeanPairScorer`, the teacher `examples/train_dse.py --teacher-cosine`
builds), and prints Spearman × 100 and each score / the best member's, in one process.

    python benchmarks/teacher_ensemble.py \\
        --member zoo:cross-encoder-mpnet-base-stsb --member cosine:zoo:sbert-mpnet-base-stsb
"""

import argparse
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from common import SHARED_DATA, cpu_flags, machine_description  # noqa: E402

from keras_sentemb.data.named_datasets import read_split  # noqa: E402
from keras_sentemb.evaluation.sts import correlations  # noqa: E402
from keras_sentemb.zoo import load_pair_scorer  # noqa: E402


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", default=SHARED_DATA, help="the benchmark data folder (docs/data.md)")
    parser.add_argument("--member", action="append", required=True, help="zoo:NAME, a .keras file, or cosine:ENCODER")
    args = parser.parse_args()
    if len(args.member) < 2:
        parser.error("give two or more --member")
    splits = {split: read_split(args.data, "stsb", split) for split in ("dev", "test")}
    scorers = {spec: load_pair_scorer(spec) for spec in args.member}
    scores, seconds = {}, {}
    for spec, scorer in scorers.items():  # each member scores each split once; the mean reuses the scores
        start = time.perf_counter()
        scores[spec] = {s: np.ravel(scorer.predict_pairs(p.sentences1, p.sentences2)) for s, p in splits.items()}
        seconds[spec] = time.perf_counter() - start
    scores["mean of the members"] = {  # MeanPairScorer(scorers).predict_pairs, from the members' scores
        s: np.mean([scores[spec][s] for spec in args.member], axis=0) for s in splits
    }
    rows = {
        name: {s: correlations(by_split[s], splits[s].scores)[0] for s in splits} for name, by_split in scores.items()
    }
    best = {s: max(rows[spec][s] for spec in args.member) for s in splits}
    print(f"\nSTS-B Spearman × 100 of each pair scorer; {machine_description()}; {cpu_flags()}\n")
    print("| scorer | dev | test | dev × best member | test × best member | scoring seconds (dev + test) |")
    print("|---|---:|---:|---:|---:|---:|")
    for name, row in rows.items():
        took = f"{seconds[name]:.0f}" if name in seconds else "(the members')"
        print(
            f"| {name} | {row['dev']:.2f} | {row['test']:.2f} | {row['dev'] / best['dev']:.4f} | "
            f"{row['test'] / best['test']:.4f} | {took} |"
        )


if __name__ == "__main__":
    main()
