"""STS-B test Spearman × 100 of cosine similarity: ours (float32, bf16) vs the anchor.

    python benchmarks/sts_quality.py --anchor-python .anchor-venv/bin/python
    python benchmarks/sts_quality.py --anchor-python .anchor-venv/bin/python --model mpnet-base

The published figures (MTEB results, STSBenchmark test) are 82.03 for all-MiniLM-L6-v2 and
83.42 for all-mpnet-base-v2; the anchor is sentence-transformers on the same weights, measured
in the same run.
"""

import argparse
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from common import default_stsb_test, machine_description, run_anchor  # noqa: E402

import keras_sentemb  # noqa: E402
import keras_sentemb.pretrained  # noqa: E402
from keras_sentemb.data.examples import read_scored_pairs  # noqa: E402
from keras_sentemb.evaluation import sts_spearman  # noqa: E402

PUBLISHED = {"minilm-l6": 82.03, "mpnet-base": 83.42}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", default=default_stsb_test())
    parser.add_argument("--anchor-python", default=None)
    parser.add_argument("--model", default="minilm-l6", choices=sorted(PUBLISHED))
    args = parser.parse_args()
    published = PUBLISHED[args.model]
    folder = keras_sentemb.pretrained.resolve_pretrained_dir(args.model)
    pairs = read_scored_pairs(args.data)
    print(f"machine: {machine_description()}")
    print(f"data: {len(pairs.scores)} pairs of {args.data}; model: {args.model} ({folder})")
    rows = []
    for label, dtype in (("float32", None), ("mixed_bfloat16", "mixed_bfloat16")):
        encoder = keras_sentemb.SentenceEncoder.from_pretrained(args.model, dtype=dtype)
        start = time.perf_counter()
        rho = sts_spearman(encoder, pairs, progress=False)
        rows.append((f"keras-sentemb ({label})", rho, time.perf_counter() - start))
    anchor = run_anchor(args.anchor_python, "sts", args.data, extra=("--model-folder", folder))
    print(f"\n{'model':<34}{'Spearman×100':>13}{'Δ anchor':>10}{'Δ published':>13}")
    for name, value, seconds in rows:
        delta = f"{value - anchor['spearman_x100']:+10.3f}" if anchor else f"{'n/a':>10}"
        print(f"{name:<34}{value:13.3f}{delta}{value - published:+13.3f}   ({seconds:.1f} s)")
    if anchor:
        print(
            f"{'sentence-transformers (anchor)':<34}{anchor['spearman_x100']:13.3f}"
            f"{0.0:+10.3f}{anchor['spearman_x100'] - published:+13.3f}"
        )
    else:
        print("anchor: not measured (give --anchor-python; see `make anchor-venv`)")


if __name__ == "__main__":
    main()
