"""Distil a sentence encoder into a static encoder (a token table + weights, mean-pooled).

    python examples/distill_static_encoder.py --data DATA                     # from MiniLM, 384-d table
    python examples/distill_static_encoder.py --data DATA --teacher mpnet-base

`DATA`: a folder in the layout of docs/data.md, `tfds` or `tfds:DIR` (default `$KERAS_SENTEMB_DATA`).

The Model2Vec start (the teacher's vector of every vocabulary token alone, PCA to `--dim`, SIF
weights from the corpus' token counts), then training on every distinct sentence of the data
folder except the test files of the evaluation tasks (STS-B, SST-2, TREC, MRPC test: about 157k
sentences; no labels) against the teacher's unit vectors (cached under `--cache`): ½(1 − cos) plus
`--mse-weight` times the squared error in the teacher's whitened space (`WhitenedDistillationLoss`), Adam, STS-B dev Spearman after each epoch with the best epoch kept
(`keras_sentemb.training.distill_static_encoder`). Writes `<output>/static_encoder.keras` and
`<output>/metrics.json` (STS-B test Spearman of the Model2Vec start, the trained model and the
teacher, and the wall time of each step).
"""

import argparse
import json
import os
import time

import keras

from keras_sentemb.data.named_datasets import add_data_argument, evaluation_split, read_split
from keras_sentemb.data.sentence_corpus import collect_sentences
from keras_sentemb.evaluation.sts import sts_spearman
from keras_sentemb.models import SentenceEncoder
from keras_sentemb.training import cached_teacher_vectors
from keras_sentemb.training.static_distillation import (
    distill_static_encoder,
    sif_weights,
    static_encoder_from_token_vectors,
    teacher_token_vectors,
    token_counts,
)
from keras_sentemb.utils.array_cache import cached_array, fingerprint, fingerprint_weights
from keras_sentemb.utils.atomic_files import atomic_open

EVALUATION_TEST_FILES = ["stsb/test.tsv", "sst2/test.tsv", "trec/test.tsv", "mrpc/test.tsv"]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_data_argument(parser)
    parser.add_argument("--teacher", default="minilm-l6", help="a preset or sentence-transformers folder")
    parser.add_argument("--dim", type=int, default=0, help="width of the token table (0: the teacher's)")
    parser.add_argument("--epochs", type=int, default=3)
    parser.add_argument("--batch-size", type=int, default=256)
    parser.add_argument("--learning-rate", type=float, default=1e-3)
    parser.add_argument("--sif-coefficient", type=float, default=1e-2)
    parser.add_argument("--train-token-weights", action="store_true", help="learn the SIF weights too")
    parser.add_argument("--mse-weight", type=float, default=0.05, help="λ of the whitened squared error")
    parser.add_argument("--limit", type=int, default=0, help="use only N sentences (smoke runs)")
    parser.add_argument("--cache", default=os.path.join("out", "cache"))
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--output", default=os.path.join("out", "static_encoder"))
    args = parser.parse_args()
    keras.utils.set_random_seed(args.seed)
    timings = {}
    start = time.perf_counter()

    sentences = collect_sentences(args.data, exclude_files=EVALUATION_TEST_FILES)
    if args.limit:
        sentences = sentences[: args.limit]
    sts_split = evaluation_split(args.data, "stsb")
    dev, test = read_split(args.data, "stsb", "dev"), read_split(args.data, "stsb", sts_split)
    teacher = SentenceEncoder.from_pretrained(args.teacher)
    step = time.perf_counter()
    targets = cached_teacher_vectors(teacher, sentences, args.cache, batch_size=128, progress=True)
    timings["teacher_sentence_vectors_s"] = round(time.perf_counter() - step)
    step = time.perf_counter()
    token_vectors = cached_array(
        args.cache,
        "teacher_token_vectors",
        fingerprint("teacher-token-vectors-v1", args.teacher, fingerprint_weights(teacher)),
        lambda: teacher_token_vectors(teacher),
    )
    timings["teacher_token_vectors_s"] = round(time.perf_counter() - step)
    teacher_test = sts_spearman(teacher, test)
    print(f"{len(sentences):,} sentences; teacher {args.teacher}: STS-B {sts_split} {teacher_test:.2f}")

    start_model = static_encoder_from_token_vectors(
        teacher.tokenizer,
        token_vectors,
        sif_weights(token_counts(teacher.tokenizer, sentences), args.sif_coefficient),
        dim=args.dim or token_vectors.shape[1],
    )
    model2vec_start = {"dev": sts_spearman(start_model, dev), sts_split: sts_spearman(start_model, test)}
    print(f"Model2Vec start: STS-B dev {model2vec_start['dev']:.2f}, {sts_split} {model2vec_start[sts_split]:.2f}")
    del start_model

    step = time.perf_counter()
    model, history = distill_static_encoder(
        teacher,
        sentences,
        targets,
        dim=args.dim or None,
        epochs=args.epochs,
        batch_size=args.batch_size,
        learning_rate=args.learning_rate,
        sif_coefficient=args.sif_coefficient,
        mse_weight=args.mse_weight,
        train_token_weights=args.train_token_weights,
        dev_pairs=dev,
        token_vectors=token_vectors,
        seed=args.seed,
    )
    timings["training_s"] = round(time.perf_counter() - step)
    os.makedirs(args.output, exist_ok=True)
    model.save(os.path.join(args.output, "static_encoder.keras"))
    dev_history = history.history.get("stsb_dev_spearman", [])
    metrics = {
        "model": "static_encoder",
        "teacher": args.teacher,
        f"stsb_{sts_split}": round(sts_spearman(model, test), 2),
        f"teacher_stsb_{sts_split}": round(teacher_test, 2),
        "model2vec_start_stsb": {key: round(value, 2) for key, value in model2vec_start.items()},
        "best_epoch": int(max(range(len(dev_history)), key=dev_history.__getitem__)) + 1 if dev_history else None,
        "stsb_dev_best": round(max(dev_history), 2) if dev_history else None,
        "history": {k: [round(float(x), 4) for x in v] for k, v in history.history.items()},
        "trained_on": {
            "files": "every known file under --data except " + ", ".join(EVALUATION_TEST_FILES),
            "sentences": len(sentences),
            "labels": "none (teacher vectors only)",
        },
        "timings": timings,
        "args": vars(args),
        "wall_time_s": round(time.perf_counter() - start),
    }
    with atomic_open(os.path.join(args.output, "metrics.json"), "w") as f:
        json.dump(metrics, f, indent=1)
    print(json.dumps({k: metrics[k] for k in (f"stsb_{sts_split}", "model2vec_start_stsb", "best_epoch", "timings")}))


if __name__ == "__main__":
    main()
