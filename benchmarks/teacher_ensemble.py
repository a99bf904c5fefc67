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

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from common import SHARED_DATA, cpu_flags, machine_description  # noqa: E402

from keras_sentemb.data.named_datasets import read_split  # noqa: E402
from keras_sentemb.evaluation.pair_scorer_metrics import pair_scorer_metrics  # noqa: E402
from keras_sentemb.training.cosine_pair_scorer import CosinePairScorer  # noqa: E402
from keras_sentemb.training.mean_pair_scorer import MeanPairScorer  # noqa: E402
from keras_sentemb.zoo import load_cross_encoder, load_sentence_encoder  # noqa: E402


class Recorded:
    """A pair scorer whose scores of each split are computed once (the mean reuses them)."""

    num_labels = 1

    def __init__(self, scorer):
        self.scorer, self.weights, self.seconds, self._scores = scorer, scorer.weights, 0.0, {}

    def predict_pairs(self, first, second, batch_size=64, progress=None):
        key = (tuple(first), tuple(second))
        if key not in self._scores:
            start = time.perf_counter()
            self._scores[key] = self.scorer.predict_pairs(first, second, batch_size=batch_size, progress=progress)
            self.seconds += time.perf_counter() - start
        return self._scores[key]


def load_member(spec):
    if spec.startswith("cosine:"):
        return CosinePairScorer(load_sentence_encoder(spec[len("cosine:") :]))
    return load_cross_encoder(spec)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", default=SHARED_DATA, help="the benchmark data folder (docs/data.md)")
    parser.add_argument("--member", action="append", required=True, help="zoo:NAME, a .keras file, or cosine:ENCODER")
    args = parser.parse_args()
    if len(args.member) < 2:
        parser.error("give two or more --member")
    splits = {split: read_split(args.data, "stsb", split) for split in ("dev", "test")}
    members = {spec: Recorded(load_member(spec)) for spec in args.member}
    rows = {
        spec: {s: pair_scorer_metrics(m, pairs)["spearman"] for s, pairs in splits.items()}
        for spec, m in members.items()
    }
    mean = MeanPairScorer(list(members.values()))
    rows["mean of the members"] = {s: pair_scorer_metrics(mean, pairs)["spearman"] for s, pairs in splits.items()}
    best = {s: max(rows[spec][s] for spec in args.member) for s in splits}
    print(f"\nSTS-B Spearman × 100 of each pair scorer; {machine_description()}; {cpu_flags()}\n")
    print("| scorer | dev | test | dev × best member | test × best member | scoring seconds (dev + test) |")
    print("|---|---:|---:|---:|---:|---:|")
    for name, row in rows.items():
        seconds = f"{members[name].seconds:.0f}" if name in members else "(the members')"
        print(
            f"| {name} | {row['dev']:.2f} | {row['test']:.2f} | {row['dev'] / best['dev']:.4f} | "
            f"{row['test'] / best['test']:.4f} | {seconds} |"
        )


if __name__ == "__main__":
    main()
