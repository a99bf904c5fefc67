"""Fine-tune an encoder for retrieval on (query, relevant document) pairs, with hard negatives it mines itself.

A plain Keras script over a BEIR-layout folder (corpus.jsonl, queries.jsonl, qrels/{train,dev,test}.tsv):

    python examples/train_retrieval.py --beir DATA/beir/nfcorpus --model minilm-l6
    python examples/train_retrieval.py --beir DATA/beir/nfcorpus --pairs my_pairs.tsv   # your own pairs
    python examples/train_retrieval.py --beir DATA/beir/nfcorpus --lora-rank 16          # LoRA adapters only

1. Training pairs: the relevant (query, document) pairs of the train qrels (or `--pairs FILE`, columns
   `query` and `document`: TSV/CSV/JSONL, read by `read_pairs`). `--sampling rounds` (the default):
   an epoch is one round of one relevant document a query (`query_rounds`), so every query weighs
   the same however many judgements it has; `--sampling pairs`: every pair each epoch (`--max-pairs`
   of them drawn with the seed).
2. Hard negatives (`--hard-negatives K`; default 0, in-batch negatives only): for each pair, the K
   documents the model itself ranks highest for the query among the 50 best documents not known to be
   relevant to it, skipping any scoring above 95 % of the query's best positive (`mine_hard_negatives`:
   likely an unjudged relevant one); a query's pairs take its candidates in turn.
3. Loss: `MultipleNegativesRankingLoss` (scale 20) with in-batch negatives plus the hard ones; a
   document known relevant to a row's query (any train qrel) is no negative for it
   (`relevant_pairs`). Every batch holds `--batch-size` examples (length grouping inside full batches).
   Queries and documents are encoded in separate passes, each at its own length.
4. AdamW (5e-5; LoRA 5e-4), warm-up over 10 % of the steps, linear decay, 6 epochs; after each epoch
   nDCG@10 on the dev split (`RetrievalEvaluator`), the best epoch kept. A killed run resumes from
   `<output>/backup` at its last finished epoch, continuing the rounds where it left them (the
   measures before training kept in `<output>/before.json`, the epochs' logs in `<output>/epochs.csv`).
   `--dtype mixed_bfloat16` trains (and measures dev) in bfloat16 arithmetic, half the activation
   memory (MPNet at batch 32 fits 24 GB); before and after are measured in float32 on the same weights. The defaults were chosen on NFCorpus dev (docs/document_search.md).
5. The test split is read once, at the end: nDCG@10 before and after, and STS-B test Spearman before and
   after with `--data DATA` (the price of specialising).
"""

import argparse
import csv
import json
import os
import time

import keras
import numpy as np

from keras_sentemb import SentenceEncoder
from keras_sentemb.data.beir_folder import read_beir_folder
from keras_sentemb.data.examples import TextPairs, read_pairs
from keras_sentemb.data.named_datasets import add_data_argument, read_split
from keras_sentemb.data.pipelines import examples_dataset
from keras_sentemb.evaluation import evaluate_beir, sts_spearman
from keras_sentemb.layers.backbone_lora import LORA_TARGETS
from keras_sentemb.losses import MultipleNegativesRankingLoss
from keras_sentemb.models import SBERT
from keras_sentemb.training import (
    LinearWarmupLinearDecay,
    NaNGuard,
    RetrievalEvaluator,
    mine_hard_negatives,
    query_rounds,
)
from keras_sentemb.training.resumable_run import ResumableRun
from keras_sentemb.utils.atomic_files import atomic_open


def training_pairs(args, train):
    """(queries, documents, positives): texts and every relevant (query index, document index) pair."""
    if args.pairs:
        pairs = read_pairs(args.pairs, "query", "document")
        queries = list(dict.fromkeys(pairs.sentences1))
        documents = list(dict.fromkeys(pairs.sentences2))
        query_row = {q: i for i, q in enumerate(queries)}
        document_row = {d: i for i, d in enumerate(documents)}
        positives = [(query_row[q], document_row[d]) for q, d in zip(pairs.sentences1, pairs.sentences2)]
    else:
        queries, documents = train.queries, train.documents
        query_row = {q: i for i, q in enumerate(train.query_ids)}
        document_row = {d: i for i, d in enumerate(train.document_ids)}
        positives = [
            (query_row[q], document_row[d])
            for q, judged in train.qrels.items()
            for d, grade in judged.items()
            if grade > 0
        ]
    return queries, documents, np.asarray(positives, np.int64)


def epoch_pairs(args, positives):
    """The pairs the whole run trains on: `epochs` rounds of one a query, or every pair (each epoch)."""
    if args.sampling == "rounds":
        return query_rounds(positives, args.epochs, seed=args.seed)
    if args.max_pairs and len(positives) > args.max_pairs:
        positives = positives[np.random.default_rng(args.seed).permutation(len(positives))[: args.max_pairs]]
    return positives


def dev_by_epoch(epochs_log):
    """Dev nDCG@10 of each epoch from the CSV log (an epoch replayed after a kill: its last row)."""
    with open(epochs_log, encoding="utf-8", newline="") as f:
        rows = {int(row["epoch"]): float(row["dev_ndcg@10"]) for row in csv.DictReader(f)}
    return [round(rows[epoch], 2) for epoch in sorted(rows)]


def measured_before(encoder, model, dev, test, stsb, output):
    """(dev nDCG@10, test measures, STS-B test Spearman) of `model` before training, kept in
    `<output>/before.json`: a later run of the same model (resumed, or with other training options)
    reads them there instead of encoding the corpus twice again (MPNet's: ten minutes an encoding here)."""
    path = os.path.join(output, "before.json")
    if os.path.isfile(path):
        with open(path, encoding="utf-8") as f:
            saved = json.load(f)
        if saved.get("model") == model and (saved["stsb_test"] is not None or not stsb):
            print(f"the measures before training, from {path}")
            return saved["dev_ndcg_at_10"], saved["test"], saved["stsb_test"]
    dev_before = evaluate_beir(encoder, dev, progress=False).metrics["ndcg@10"]
    before = evaluate_beir(encoder, test, progress=False).metrics
    sts_before = sts_spearman(encoder, stsb, progress=False) if stsb else None
    os.makedirs(output, exist_ok=True)
    with atomic_open(path, "w") as f:
        json.dump({"model": model, "dev_ndcg_at_10": dev_before, "test": before, "stsb_test": sts_before}, f)
    return dev_before, before, sts_before


def float32_twin(encoder, model):
    """The float32 encoder that measures before and after training when the trained one computes in
    a mixed policy (`--dtype mixed_bfloat16`): the same weights, float32 arithmetic, so that the test
    numbers are the model's and not its rounding's."""
    twin = SentenceEncoder.from_pretrained(model)
    twin.set_weights(encoder.get_weights())
    return twin


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--beir", required=True, help="BEIR folder: corpus, queries, qrels/train|dev|test.tsv")
    parser.add_argument("--pairs", help="your own (query, document) pairs instead of the train qrels")
    add_data_argument(parser)
    parser.add_argument("--model", default="minilm-l6", help="a preset (minilm-l6, mpnet-base) or a folder")
    parser.add_argument("--dtype", default=None, help="the backbone's Keras dtype policy, e.g. mixed_bfloat16")
    parser.add_argument("--epochs", type=int, default=6)
    parser.add_argument(
        "--sampling",
        choices=["rounds", "pairs"],
        default="rounds",
        help="an epoch is one relevant document a query (rounds) or every pair (pairs)",
    )
    parser.add_argument("--batch-size", type=int, default=32)
    parser.add_argument("--learning-rate", type=float, default=None)
    parser.add_argument("--warmup", type=float, default=0.1)
    parser.add_argument("--hard-negatives", type=int, default=0, help="mined negatives a pair (0: in-batch only)")
    parser.add_argument(
        "--negatives-relative-to",
        choices=["query", "pair"],
        default="query",
        help="the hard negatives' margin against the query's best positive (default: many relevant documents a "
        "query) or each pair's own (sentence-transformers' rule)",
    )
    parser.add_argument("--max-pairs", type=int, default=0, help="--sampling pairs: at most this many (0: all)")
    parser.add_argument("--lora-rank", type=int, default=0, help="0 = full fine-tuning")
    parser.add_argument("--lora-targets", choices=sorted(LORA_TARGETS), default="all")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--output", default=os.path.join("out", "train_retrieval"))
    args = parser.parse_args()
    keras.utils.set_random_seed(args.seed)
    start = time.perf_counter()

    train = read_beir_folder(args.beir, split="train") if not args.pairs else None
    dev, test = read_beir_folder(args.beir, split="dev"), read_beir_folder(args.beir, split="test")
    stsb = read_split(args.data, "stsb", "test") if args.data else None
    encoder = SentenceEncoder.from_pretrained(args.model, dtype=args.dtype)
    run = ResumableRun(args.output)
    measuring = float32_twin(encoder, args.model) if args.dtype else encoder
    dev_before, before, sts_before = measured_before(measuring, args.model, dev, test, stsb, args.output)
    print(
        f"dev nDCG@10 before: {dev_before:.2f}; test {before['ndcg@10']:.2f}"
        + (f"; STS-B test {sts_before:.2f}" if stsb else "")
    )

    queries, documents, positives = training_pairs(args, train)
    pairs = epoch_pairs(args, positives)
    if args.hard_negatives:
        mined = mine_hard_negatives(
            encoder,
            queries,
            documents,
            pairs,
            num_negatives=args.hard_negatives,
            relative_to=args.negatives_relative_to,
            known_positives=positives,
        )
        examples, ids, skipped = mined.triplets, mined.ids, mined.skipped
        print(f"{len(pairs)} pairs → {len(ids)} triplets ({mined.skipped} pairs without a hard negative)")
    else:
        examples, ids, skipped = TextPairs([queries[q] for q, _ in pairs], [documents[d] for _, d in pairs]), pairs, 0
    if args.lora_rank:
        encoder.enable_lora(args.lora_rank, LORA_TARGETS[args.lora_targets])
    learning_rate = args.learning_rate or (5e-4 if args.lora_rank else 5e-5)
    train_data = examples_dataset(
        examples, encoder.tokenizer, labels=ids.astype(np.float32), batch_size=args.batch_size, seed=args.seed
    )
    # rounds: one pass over all the rounds, an epoch a round (fit keeps its iterator across epochs
    # when steps_per_epoch is set); pairs: every pair each epoch
    steps_per_epoch = len(train_data) // args.epochs if args.sampling == "rounds" else len(train_data)
    steps = steps_per_epoch * args.epochs
    if args.sampling == "rounds" and run.finished_epochs:
        # a resumed run continues the one pass where the killed run left it (the pass's order is
        # seeded: without the pipeline's epoch order attached, its first iteration is epoch 0's)
        train_data = train_data.skip(run.finished_epochs * steps_per_epoch)
        print(f"resuming after epoch {run.finished_epochs}: {run.finished_epochs * steps_per_epoch} batches done")
    sbert = SBERT(encoder, "mnrl", one_pass=False)
    sbert.compile(
        optimizer=keras.optimizers.AdamW(
            LinearWarmupLinearDecay(learning_rate, steps, args.warmup), weight_decay=0.01, global_clipnorm=1.0
        ),
        loss=MultipleNegativesRankingLoss(relevant_pairs=positives),
    )
    print(f"{len(ids)} examples, {steps} steps of {args.batch_size}, learning rate {learning_rate}")
    evaluator = RetrievalEvaluator(
        encoder, dev, name="dev", restore_best_weights=True, best_weights_path=run.best_weights_path
    )
    epochs_log = os.path.join(args.output, "epochs.csv")  # every epoch's logs, across resumed runs
    os.makedirs(args.output, exist_ok=True)
    if not os.path.isdir(run.backup_dir) and os.path.exists(epochs_log):
        os.remove(epochs_log)  # a fresh run
    sbert.fit(
        train_data,
        epochs=args.epochs,
        steps_per_epoch=steps_per_epoch,
        callbacks=[
            evaluator,
            keras.callbacks.CSVLogger(epochs_log, append=True),
            NaNGuard(os.path.join(args.output, "last_good.weights.h5")),
            *run.callbacks(),
        ],
        verbose=1,
    )
    if args.dtype:
        if args.lora_rank:
            measuring.enable_lora(args.lora_rank, LORA_TARGETS[args.lora_targets])
        measuring.set_weights(encoder.get_weights())
    after = evaluate_beir(measuring, test, progress=False).metrics
    sts_after = sts_spearman(measuring, stsb, progress=False) if stsb else None
    if args.lora_rank:
        saved = os.path.join(args.output, f"lora_r{args.lora_rank}.lora.h5")
        encoder.save_lora_weights(saved)
    else:
        saved = os.path.join(args.output, "encoder.keras")
        encoder.save(saved)
    print(f"test nDCG@10 after: {after['ndcg@10']:.2f} (before {before['ndcg@10']:.2f}); saved {saved}")
    report = json.dumps(
        {
            "model": args.model,
            "pairs": int(len(positives)),
            "sampling": args.sampling,
            "examples": int(len(ids)),
            "steps_per_epoch": steps_per_epoch,
            "batch_size": args.batch_size,
            "pairs_without_negative": int(skipped),
            "hard_negatives": args.hard_negatives,
            "lora_rank": args.lora_rank,
            "dtype": args.dtype or "float32",
            "dev_ndcg_at_10_before": round(dev_before, 2),
            "dev_ndcg_at_10": round(evaluator.best_ndcg, 2),
            "best_epoch": None if evaluator.best_epoch is None else evaluator.best_epoch + 1,
            "dev_ndcg_at_10_by_epoch": dev_by_epoch(epochs_log),
            "test_before": {k: round(v, 2) for k, v in before.items()},
            "test_after": {k: round(v, 2) for k, v in after.items()},
            "stsb_test_before": None if sts_before is None else round(sts_before, 2),
            "stsb_test_after": None if sts_after is None else round(sts_after, 2),
            "fit_s": round(run.fit_seconds),
            "wall_time_s": round(time.perf_counter() - start),
        }
    )
    with atomic_open(os.path.join(args.output, "report.json"), "w") as f:
        f.write(report + "\n")
    print(report)


if __name__ == "__main__":
    main()
