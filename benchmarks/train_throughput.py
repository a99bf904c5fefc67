"""Training throughput (pairs/s): length-bucketed batches vs random batches vs the anchor.

Same model (all-MiniLM-L6-v2), same data (`--pairs` pairs of STS-B train drawn with a fixed
seed across all its genres, so lengths vary as in the whole file), same
hyper-parameters (SBERT regression objective, batch 16, AdamW 2e-5, weight decay 0.01,
10 % warm-up), one epoch each after a warm-up fit (tracing excluded):
- keras-sentemb `SBERT.fit` on the bucketed pipeline (`examples_dataset`, default);
- the same on random batches padded to the batch maximum (`bucketing=False`);
- the anchor: sentence-transformers `fit` (PyTorch, CPU), via `--anchor-python`.

    python benchmarks/train_throughput.py --anchor-python .anchor-venv/bin/python
"""

import argparse
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import keras  # noqa: E402
import numpy as np  # noqa: E402
from common import REPO, SHARED_DATA, machine_description, run_anchor  # noqa: E402

from keras_sentemb import SentenceEncoder  # noqa: E402
from keras_sentemb.data.examples import ScoredPairs, read_scored_pairs  # noqa: E402
from keras_sentemb.data.pipelines import examples_dataset  # noqa: E402
from keras_sentemb.models import SBERT  # noqa: E402
from keras_sentemb.training import LinearWarmupLinearDecay  # noqa: E402


def pairs_per_second(pairs, batch_size, bucketing, seed=0):
    keras.utils.set_random_seed(seed)
    encoder = SentenceEncoder.from_pretrained("minilm-l6")
    data = examples_dataset(pairs, encoder.tokenizer, batch_size=batch_size, bucketing=bucketing, seed=seed)
    sbert = SBERT(encoder, "regression")
    sbert.compile(
        optimizer=keras.optimizers.AdamW(LinearWarmupLinearDecay(2e-5, 2 * len(data), 0.1), weight_decay=0.01)
    )
    sbert.fit(data, epochs=1, verbose=0)  # warm-up: traces the train step for the shapes seen
    start = time.perf_counter()
    sbert.fit(data, epochs=1, verbose=0)
    return len(pairs) / (time.perf_counter() - start)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", default=os.path.join(SHARED_DATA, "stsb", "train.tsv"))
    parser.add_argument("--pairs", type=int, default=960)
    parser.add_argument("--batch-size", type=int, default=16)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--anchor-python", default=None)
    args = parser.parse_args()
    full = read_scored_pairs(args.data)
    chosen = sorted(np.random.default_rng(args.seed).choice(len(full), size=args.pairs, replace=False))
    pairs = ScoredPairs(
        [full.sentences1[i] for i in chosen], [full.sentences2[i] for i in chosen], [full.scores[i] for i in chosen]
    )
    sample_path = os.path.join(REPO, "out", "benchmarks", "train_throughput_sample.tsv")
    os.makedirs(os.path.dirname(sample_path), exist_ok=True)
    with open(sample_path, "w", encoding="utf-8") as f:  # the anchor reads the same pairs
        f.write("score\tsentence1\tsentence2\n")
        f.writelines(f"{s}\t{a}\t{b}\n" for a, b, s in zip(pairs.sentences1, pairs.sentences2, pairs.scores))
    print(f"machine: {machine_description()}")
    lengths = [len(a.split()) + len(b.split()) for a, b in zip(pairs.sentences1, pairs.sentences2)]
    print(
        f"data: {len(pairs)} random pairs (seed {args.seed}) of {args.data}, words per pair "
        f"median {np.median(lengths):.0f}, p90 {np.percentile(lengths, 90):.0f}, max {max(lengths)}; "
        f"batch {args.batch_size}, 1 timed epoch"
    )

    anchor = run_anchor(
        args.anchor_python, "train", sample_path, ["--batch-size", str(args.batch_size), "--max-pairs", str(args.pairs)]
    )
    bucketed = pairs_per_second(pairs, args.batch_size, bucketing=True)
    random_batches = pairs_per_second(pairs, args.batch_size, bucketing=False)

    print(f"\n{'path':<46}{'pairs/s':>9}{'× random':>10}{'× anchor':>10}")
    rows = [
        ("keras-sentemb SBERT.fit, length-bucketed", bucketed),
        ("keras-sentemb SBERT.fit, random batches", random_batches),
    ]
    if anchor:
        rows.append((f"sentence-transformers fit (anchor, torch {anchor['torch']})", anchor["pairs_per_s"]))
    for name, rate in rows:
        vs_anchor = f"{rate / anchor['pairs_per_s']:10.2f}" if anchor else f"{'n/a':>10}"
        print(f"{name:<46}{rate:9.1f}{rate / random_batches:10.2f}{vs_anchor}")
    if not anchor:
        print("anchor: not measured (give --anchor-python; see `make anchor-venv`)")


if __name__ == "__main__":
    main()
