"""Distil MiniLM into BiLSTM-SRA on unlabeled sentences: ½(1 − cos(T_x, S_x)).

    python examples/distill_bilstm_sra.py --data DATA                        # MiniLM mean-pooled teacher
    python examples/distill_bilstm_sra.py --data DATA --teacher-pooling cls  # its [CLS] state instead

`DATA`: a folder in the layout of docs/data.md, `tfds` or `tfds:DIR` (default `$KERAS_SENTEMB_DATA`).

What the model sees: every distinct sentence of the STS-B train/dev, MRPC train/test,
SNLI train-subset/dev/test, SST-2 train/dev/test and TREC train/test files under `--data`
(`collect_sentences`, about 163k), minus every sentence of STS-B test, the benchmark it
is judged on; no labels. The teacher's unit vectors T_x are computed once and cached
under `--cache`. Word tables: GloVe 6B 50-d + per-word MiniLM vectors projected to 128
dims (`build_word_vectors`), frozen. Adam (peak 2e-3, 2 % warm-up, linear decay to 0 over
6 epochs), SRALoss, STS-B dev Spearman after each epoch with the best epoch kept; writes `<output>/bilstm_sra.keras` and
`<output>/metrics.json` (STS-B test Spearman of cosine, teacher measured the same way).
"""

import argparse
import json
import os
import time

import keras

from keras_sentemb.data.named_datasets import add_data_argument, evaluation_split, read_split
from keras_sentemb.data.pipelines import sentence_targets_dataset
from keras_sentemb.data.sentence_corpus import collect_sentences
from keras_sentemb.evaluation.sts import correlations, cosine_scores
from keras_sentemb.losses import SRALoss
from keras_sentemb.models import BiLSTMSRA, SentenceEncoder, build_word_vectors
from keras_sentemb.training import LinearWarmupLinearDecay, STSEvaluator, cached_teacher_vectors
from keras_sentemb.utils.atomic_files import atomic_open


def teacher_encoder(pooling):
    """MiniLM as the teacher: its mean-pooled sentence embedding or its [CLS] state."""
    encoder = SentenceEncoder.from_pretrained("minilm-l6")
    if pooling == "mean":
        return encoder
    return SentenceEncoder(
        encoder.backbone, encoder.tokenizer, pooling="cls", normalize=True, name="sentence_encoder_minilm_l6_cls"
    )


def sts_test(encode_model, test):
    spearman, pearson = correlations(
        cosine_scores(encode_model, test.sentences1, test.sentences2, progress=False), test.scores
    )
    return {"spearman": round(spearman, 2), "pearson": round(pearson, 2)}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_data_argument(parser)
    parser.add_argument("--teacher-pooling", choices=["mean", "cls"], default="mean")
    parser.add_argument("--vocabulary", type=int, default=100_000, help="most frequent GloVe words kept")
    parser.add_argument("--units", type=int, default=192, help="LSTM units per direction")
    parser.add_argument("--epochs", type=int, default=6)
    parser.add_argument("--batch-size", type=int, default=128)
    parser.add_argument("--learning-rate", type=float, default=2e-3)
    parser.add_argument("--limit", type=int, default=0, help="use only N sentences (smoke runs)")
    parser.add_argument("--cache", default=os.path.join("out", "cache"))
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--output", default=os.path.join("out", "bilstm_sra"))
    args = parser.parse_args()
    keras.utils.set_random_seed(args.seed)
    start = time.perf_counter()

    excluded = ["stsb/test.tsv"]
    sentences = collect_sentences(args.data, exclude_files=excluded)
    if args.limit:
        sentences = sentences[: args.limit]
    sts_split = evaluation_split(args.data, "stsb")  # "dev" from TFDS (GLUE keeps test labels secret)
    dev, test = read_split(args.data, "stsb", "dev"), read_split(args.data, "stsb", sts_split)
    teacher = teacher_encoder(args.teacher_pooling)
    targets = cached_teacher_vectors(teacher, sentences, args.cache, progress=True)
    teacher_test = sts_test(teacher, test)
    del teacher

    vectors = build_word_vectors(top_n=args.vocabulary, cache_dir=args.cache)
    model = BiLSTMSRA.from_word_vectors(vectors, teacher_dim=targets.shape[1], units=args.units)
    train = sentence_targets_dataset(sentences, targets, model.tokenizer, batch_size=args.batch_size, seed=args.seed)
    schedule = LinearWarmupLinearDecay(args.learning_rate, len(train) * args.epochs, 0.02)
    model.compile(optimizer=keras.optimizers.Adam(schedule), loss=SRALoss())
    print(
        f"BiLSTM-SRA: {len(sentences):,} sentences, {len(train)} batches/epoch, "
        f"teacher MiniLM ({args.teacher_pooling}), tables {model.table_shapes}"
    )
    evaluator = STSEvaluator(model, dev, name="stsb_dev", restore_best_weights=True)
    history = model.fit(train, epochs=args.epochs, callbacks=[evaluator], verbose=2)

    os.makedirs(args.output, exist_ok=True)
    model.save(os.path.join(args.output, "bilstm_sra.keras"))
    metrics = {
        "model": "bilstm_sra",
        "teacher": f"all-MiniLM-L6-v2 ({args.teacher_pooling})",
        f"stsb_{sts_split}": sts_test(model, test),
        f"teacher_stsb_{sts_split}": teacher_test,
        "best_epoch": evaluator.best_epoch + 1,
        "stsb_dev_best": round(evaluator.best_spearman, 2),
        "history": {k: [round(float(x), 4) for x in v] for k, v in history.history.items()},
        "trained_on": {
            "files": "every known file under --data except " + ", ".join(excluded),
            "sentences": len(sentences),
            "labels": "none (teacher vectors only)",
        },
        "args": vars(args),
        "wall_time_s": round(time.perf_counter() - start),
    }
    with atomic_open(os.path.join(args.output, "metrics.json"), "w") as f:
        json.dump(metrics, f, indent=1)
    print(
        json.dumps(
            {k: metrics[k] for k in (f"stsb_{sts_split}", f"teacher_stsb_{sts_split}", "best_epoch", "wall_time_s")}
        )
    )


if __name__ == "__main__":
    main()
