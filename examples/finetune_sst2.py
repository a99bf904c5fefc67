"""Fine-tune a distilled BiLSTM-SRA on SST-2 sentiment, optionally with knowledge distillation.

    python examples/distill_bilstm_sra.py --data DATA               # the encoder, first
    python examples/finetune_sst2.py --data DATA                    # cross-entropy on the labels
    python examples/finetune_sst2.py --data DATA --kd-alpha 0.5     # + MSE to a teacher's logits

`DATA`: a folder in the layout of docs/data.md, `tfds` or `tfds:DIR` (default `$KERAS_SENTEMB_DATA`).

The classifier is `SentenceClassifier`: the BiLSTM-SRA sentence vector → one hidden ReLU
layer of 256 → 2 logits, encoder and head trained together (Adam). With `--kd-alpha a`
the loss is a·‖S − T‖² + (1 − a)·CE(S, y) (`DistillationLoss`), T the logits of a
teacher: a linear softmax classifier trained on SST-2 train over frozen MiniLM sentence
vectors (cached under `--cache`). The epoch with the best dev accuracy is kept; dev and
test accuracy are reported (SentEval's SST-2 test carries labels).
"""

import argparse
import json
import os
import time

import keras
import numpy as np

from keras_sentemb.data.named_datasets import add_data_argument, evaluation_split, read_split
from keras_sentemb.data.pipelines import examples_dataset
from keras_sentemb.models import SentenceClassifier, SentenceEncoder
from keras_sentemb.training import cached_teacher_vectors
from keras_sentemb.utils.atomic_files import atomic_open


def accuracy(logits, labels):
    return round(100 * float(np.mean(np.argmax(logits, -1) == np.asarray(labels))), 2)


class BestDevAccuracy(keras.callbacks.Callback):
    """Dev accuracy after every epoch; the best epoch's weights are restored at the end."""

    def __init__(self, dev):
        super().__init__()
        self.dev, self.best, self.best_epoch, self.weights = dev, -1.0, None, None

    def on_epoch_end(self, epoch, logs=None):
        score = accuracy(self.model.predict_texts(self.dev.sentences), self.dev.labels)
        print(f"\nSST-2 dev accuracy {score:.2f} (epoch {epoch + 1})")
        if logs is not None:
            logs["sst2_dev_accuracy"] = score
        if score > self.best:
            self.best, self.best_epoch, self.weights = score, epoch + 1, self.model.get_weights()

    def on_train_end(self, logs=None):
        self.model.set_weights(self.weights)


def teacher_logits(train, evaluate, cache, seed):
    """A linear softmax teacher over frozen MiniLM vectors: its logits on `train` and its
    accuracy on each set of `evaluate`."""
    minilm = SentenceEncoder.from_pretrained("minilm-l6")
    vectors = {
        name: cached_teacher_vectors(minilm, data.sentences, cache, progress=True)
        for name, data in [("train", train)] + list(evaluate.items())
    }
    keras.utils.set_random_seed(seed)
    teacher = keras.Sequential([keras.Input((vectors["train"].shape[1],)), keras.layers.Dense(2)])
    teacher.compile(keras.optimizers.Adam(1e-2), keras.losses.SparseCategoricalCrossentropy(from_logits=True))
    teacher.fit(vectors["train"], np.asarray(train.labels), batch_size=256, epochs=10, verbose=0)
    scores = {name: accuracy(teacher.predict(vectors[name], verbose=0), data.labels) for name, data in evaluate.items()}
    return teacher.predict(vectors["train"], verbose=0), scores


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_data_argument(parser)
    parser.add_argument("--encoder", default=os.path.join("out", "bilstm_sra", "bilstm_sra.keras"))
    parser.add_argument("--epochs", type=int, default=3)
    parser.add_argument("--batch-size", type=int, default=64)
    parser.add_argument("--learning-rate", type=float, default=5e-4)
    parser.add_argument("--kd-alpha", type=float, default=0.0, help="weight of the teacher term")
    parser.add_argument("--cache", default=os.path.join("out", "cache"))
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--output", default=None)
    args = parser.parse_args()
    output = args.output or os.path.join("out", f"sst2_kd{args.kd_alpha:g}")
    keras.utils.set_random_seed(args.seed)
    start = time.perf_counter()

    # SentEval's SST-2 test carries labels; TFDS's glue/sst2 test does not: then test is dev.
    train, dev = read_split(args.data, "sst2", "train"), read_split(args.data, "sst2", "dev")
    test = read_split(args.data, "sst2", evaluation_split(args.data, "sst2"))
    labels, teacher_scores = None, None
    if args.kd_alpha > 0:
        logits, teacher_scores = teacher_logits(train, {"dev": dev, "test": test}, args.cache, args.seed)
        labels = np.column_stack([np.asarray(train.labels, np.float32), logits])
        print(f"teacher (linear on frozen MiniLM): dev {teacher_scores['dev']}, test {teacher_scores['test']}")

    encoder = keras.saving.load_model(args.encoder)
    classifier = SentenceClassifier(encoder, num_classes=2, hidden_units=(256,), dropout=0.1)
    classifier.compile(
        optimizer=keras.optimizers.Adam(args.learning_rate),
        distillation_alpha=args.kd_alpha if args.kd_alpha > 0 else None,
    )
    data = examples_dataset(train, encoder.tokenizer, labels=labels, batch_size=args.batch_size, seed=args.seed)
    print(f"SST-2: {len(train):,} training sentences, {len(data)} batches/epoch, KD α = {args.kd_alpha}")
    best = BestDevAccuracy(dev)
    classifier.fit(data, epochs=args.epochs, callbacks=[best], verbose=2)

    os.makedirs(output, exist_ok=True)
    classifier.save(os.path.join(output, "sst2_classifier.keras"))
    metrics = {
        "model": "bilstm_sra + SentenceClassifier",
        "encoder": args.encoder,
        "kd_alpha": args.kd_alpha,
        "best_epoch": best.best_epoch,
        "sst2_dev_accuracy": accuracy(classifier.predict_texts(dev.sentences), dev.labels),
        "sst2_test_accuracy": accuracy(classifier.predict_texts(test.sentences), test.labels),
        "teacher": teacher_scores,
        "args": vars(args),
        "wall_time_s": round(time.perf_counter() - start),
    }
    with atomic_open(os.path.join(output, "metrics.json"), "w") as f:
        json.dump(metrics, f, indent=1)
    print(
        json.dumps(
            {k: metrics[k] for k in ("sst2_dev_accuracy", "sst2_test_accuracy", "best_epoch", "teacher", "wall_time_s")}
        )
    )


if __name__ == "__main__":
    main()
