"""Train all-MiniLM-L6-v2 with SBERT's classification objective on the SNLI sample.

softmax(W·[u, v, |u−v|]) over entailment / neutral / contradiction, cross-entropy, one
shared encoder. Prints SNLI dev accuracy and STS-B test Spearman before and after.

    python examples/train_sbert_nli.py --epochs 1 --data DATA
    python examples/train_sbert_nli.py --epochs 1 --data tfds --nli multi_nli   # MultiNLI from TFDS

`DATA`: a folder in the layout of docs/data.md, `tfds` or `tfds:DIR` (default `$KERAS_SENTEMB_DATA`).
"""

import argparse
import os
import resource
import time

import keras
import numpy as np

from keras_sentemb import SentenceEncoder
from keras_sentemb.data.examples import NLI_LABELS
from keras_sentemb.data.named_datasets import add_data_argument, evaluation_split, read_split
from keras_sentemb.data.pipelines import examples_dataset
from keras_sentemb.evaluation import sts_spearman
from keras_sentemb.models import SBERT
from keras_sentemb.training import LinearWarmupLinearDecay, NaNGuard
from keras_sentemb.training.exact_backup import ExactBackupAndRestore


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_data_argument(parser)
    parser.add_argument("--nli", choices=["snli", "multi_nli"], default="snli", help="the NLI training set")
    parser.add_argument("--epochs", type=int, default=1)
    parser.add_argument("--batch-size", type=int, default=16)
    parser.add_argument("--learning-rate", type=float, default=2e-5)
    parser.add_argument("--max-examples", type=int, default=None, help="use the first N pairs")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--output", default=os.path.join("out", "train_sbert_nli"))
    args = parser.parse_args()
    keras.utils.set_random_seed(args.seed)
    start = time.perf_counter()

    train = read_split(args.data, args.nli, "train")
    if args.max_examples:
        train.sentences1, train.sentences2, train.labels = (
            column[: args.max_examples] for column in (train.sentences1, train.sentences2, train.labels)
        )
    dev = read_split(args.data, args.nli, "dev")
    sts_split = evaluation_split(args.data, "stsb")  # "dev" from TFDS (GLUE keeps test labels secret)
    sts_test = read_split(args.data, "stsb", sts_split)

    encoder = SentenceEncoder.from_pretrained("minilm-l6")
    before = sts_spearman(encoder, sts_test, progress=False)
    print(f"STS-B {sts_split} Spearman before: {before:.2f}")

    train_data = examples_dataset(train, encoder.tokenizer, batch_size=args.batch_size, seed=args.seed)
    dev_data = examples_dataset(dev, encoder.tokenizer, batch_size=64, shuffle=False)
    sbert = SBERT(encoder, objective="classification", num_classes=len(NLI_LABELS))
    schedule = LinearWarmupLinearDecay(args.learning_rate, len(train_data) * args.epochs, 0.1)
    sbert.compile(
        optimizer=keras.optimizers.AdamW(schedule, weight_decay=0.01),
        metrics=[keras.metrics.SparseCategoricalAccuracy(name="accuracy")],
    )
    print(f"{len(train)} training pairs, {len(train_data)} batches per epoch")
    sbert.fit(
        train_data,
        epochs=args.epochs,
        verbose=2,
        callbacks=[
            NaNGuard(os.path.join(args.output, "last_good.weights.h5")),
            ExactBackupAndRestore(os.path.join(args.output, "backup")),
        ],
    )

    dev_loss, dev_accuracy = sbert.evaluate(dev_data, verbose=0)
    after = sts_spearman(encoder, sts_test, progress=False)
    peak_gb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024**2
    print(
        f"SNLI dev accuracy: {100 * dev_accuracy:.2f} (loss {dev_loss:.4f}, chance "
        f"{100 * np.bincount(dev.labels).max() / len(dev):.1f})"
    )
    print(f"STS-B {sts_split} Spearman after: {after:.2f} (before {before:.2f})")
    print(f"wall time {time.perf_counter() - start:.0f} s; peak memory {peak_gb:.2f} GB")


if __name__ == "__main__":
    main()
