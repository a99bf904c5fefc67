"""Train InferLite (GloVe + MiniLM word vectors, GatedConvFusion): distillation, then NLI.

    python examples/train_inferlite.py --data DATA                      # distil, then SNLI
    python examples/train_inferlite.py --data DATA --nli-epochs 0       # distillation only
    python examples/train_inferlite.py --data DATA --distill-epochs 0   # SNLI only (20k pairs)

`DATA`: a folder in the layout of docs/data.md, `tfds` or `tfds:DIR` (default `$KERAS_SENTEMB_DATA`).

Stage 1, distillation (what the model sees: the distinct sentences of every file under
`--data` except STS-B test, about 163k, no labels; `collect_sentences`): the embedding
W_p·s (`projection_dim=384`) learns MiniLM's unit sentence vectors with `SRALoss`
(½(1 − cos)), teacher vectors cached under `--cache`.
Stage 2, NLI (the 20k-pair SNLI train sample, labels used): InferLite's classifier, two
hidden ReLU layers of 512 over [u, v, |u − v|, u ∘ v] and a 3-way softmax
(`SBERT(..., head=InferLite.nli_head())`), encoder and head trained together.
After each stage: STS-B dev Spearman of cosine after every epoch (best epoch kept),
STS-B test and SNLI dev/test accuracy. Writes `<output>/inferlite.keras` and
`<output>/metrics.json`.
"""

import argparse
import json
import os
import time

import keras
import numpy as np

from keras_sentemb.data.named_datasets import add_data_argument, evaluation_split, read_split
from keras_sentemb.data.pipelines import examples_dataset, sentence_targets_dataset
from keras_sentemb.data.sentence_corpus import collect_sentences
from keras_sentemb.evaluation.sts import correlations, cosine_scores
from keras_sentemb.losses import SRALoss
from keras_sentemb.models import SBERT, InferLite, SentenceEncoder, build_word_vectors
from keras_sentemb.training import STSEvaluator, cached_teacher_vectors
from keras_sentemb.utils.atomic_files import atomic_open


def sts(model, pairs):
    spearman, pearson = correlations(
        cosine_scores(model, pairs.sentences1, pairs.sentences2, progress=False), pairs.scores
    )
    return {"spearman": round(spearman, 2), "pearson": round(pearson, 2)}


def nli_accuracy(sbert, pairs, tokenizer):
    data = examples_dataset(pairs, tokenizer, batch_size=256, shuffle=False)
    logits = sbert.predict(data, verbose=0)
    labels = np.concatenate([y.numpy() for _, y in data])
    return round(100 * float(np.mean(logits.argmax(-1) == labels)), 2)


NLI_SPLITS = {"train_subset": "train", "dev": "dev", "test": "test"}  # SNLI splits by their folder file names


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_data_argument(parser)
    parser.add_argument("--vocabulary", type=int, default=100_000, help="most frequent GloVe words kept")
    parser.add_argument("--units", type=int, default=256)
    parser.add_argument("--num-layers", type=int, default=2)
    parser.add_argument("--filter-length", type=int, default=1, choices=[1, 3])
    parser.add_argument("--distill-epochs", type=int, default=3)
    parser.add_argument("--nli-epochs", type=int, default=2)
    parser.add_argument("--batch-size", type=int, default=128)
    parser.add_argument("--learning-rate", type=float, default=1e-3)
    parser.add_argument("--nli-learning-rate", type=float, default=2e-4)
    parser.add_argument("--cache", default=os.path.join("out", "cache"))
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--output", default=os.path.join("out", "inferlite"))
    args = parser.parse_args()
    keras.utils.set_random_seed(args.seed)
    start = time.perf_counter()
    os.makedirs(args.output, exist_ok=True)

    sts_split = evaluation_split(args.data, "stsb")  # "dev" from TFDS (GLUE keeps test labels secret)
    dev, test = read_split(args.data, "stsb", "dev"), read_split(args.data, "stsb", sts_split)
    nli_sets = {name: read_split(args.data, "snli", split) for name, split in NLI_SPLITS.items()}
    vectors = build_word_vectors(top_n=args.vocabulary, cache_dir=args.cache)
    model = InferLite.from_word_vectors(
        vectors, units=args.units, num_layers=args.num_layers, filter_length=args.filter_length, projection_dim=384
    )
    metrics = {
        "model": "inferlite",
        "tables": {k: list(v) for k, v in model.table_shapes.items()},
        "stages": [],
        "args": vars(args),
    }

    if args.distill_epochs:
        excluded = ["stsb/test.tsv"]
        sentences = collect_sentences(args.data, exclude_files=excluded)
        targets = cached_teacher_vectors(
            SentenceEncoder.from_pretrained("minilm-l6"), sentences, args.cache, progress=True
        )
        train = sentence_targets_dataset(
            sentences, targets, model.tokenizer, batch_size=args.batch_size, seed=args.seed
        )
        model.compile(optimizer=keras.optimizers.Adam(args.learning_rate), loss=SRALoss())
        print(f"stage 1, distillation: {len(sentences):,} sentences, {len(train)} batches/epoch")
        evaluator = STSEvaluator(model, dev, name="stsb_dev", restore_best_weights=True)
        model.fit(train, epochs=args.distill_epochs, callbacks=[evaluator], verbose=2)
        metrics["stages"].append(
            {
                "stage": "distillation",
                "teacher": "all-MiniLM-L6-v2 (mean, unit)",
                "saw": {
                    "sentences": len(sentences),
                    "files": "every known file under --data except " + ", ".join(excluded),
                    "labels": "none",
                },
                "epochs": args.distill_epochs,
                "best_epoch": evaluator.best_epoch + 1,
                "stsb_dev": round(evaluator.best_spearman, 2),
                f"stsb_{sts_split}": sts(model, test),
            }
        )
        print(json.dumps(metrics["stages"][-1]))

    if args.nli_epochs:
        sbert = SBERT(model, objective="classification", head=InferLite.nli_head())
        train = examples_dataset(nli_sets["train_subset"], model.tokenizer, batch_size=args.batch_size, seed=args.seed)
        sbert.compile(optimizer=keras.optimizers.Adam(args.nli_learning_rate))
        print(f"stage 2, SNLI: {len(nli_sets['train_subset'])} pairs, {len(train)} batches/epoch")
        evaluator = STSEvaluator(model, dev, name="stsb_dev", restore_best_weights=True)
        sbert.fit(train, epochs=args.nli_epochs, callbacks=[evaluator], verbose=2)
        metrics["stages"].append(
            {
                "stage": "nli",
                "saw": {
                    "pairs": len(nli_sets["train_subset"]),
                    "files": "snli train (nli/snli_train_subset.tsv.gz in a folder)",
                    "labels": "yes",
                },
                "epochs": args.nli_epochs,
                "best_epoch": evaluator.best_epoch + 1,
                "stsb_dev": round(evaluator.best_spearman, 2),
                f"stsb_{sts_split}": sts(model, test),
                "snli_dev_accuracy": nli_accuracy(sbert, nli_sets["dev"], model.tokenizer),
                "snli_test_accuracy": nli_accuracy(sbert, nli_sets["test"], model.tokenizer),
            }
        )
        print(json.dumps(metrics["stages"][-1]))

    model.save(os.path.join(args.output, "inferlite.keras"))
    metrics[f"stsb_{sts_split}"] = sts(model, test)
    metrics["wall_time_s"] = round(time.perf_counter() - start)
    with atomic_open(os.path.join(args.output, "metrics.json"), "w") as f:
        json.dump(metrics, f, indent=1)
    print(json.dumps({f"stsb_{sts_split}": metrics[f"stsb_{sts_split}"], "wall_time_s": metrics["wall_time_s"]}))


if __name__ == "__main__":
    main()
