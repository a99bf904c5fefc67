"""Train a ColBERT model (late interaction) with model.fit on a BEIR collection's train qrels.

    python examples/train_colbert.py --beir ../shared/data/beir/nfcorpus --model minilm-l6 --output out/colbert

1. Model: a MultiVectorEncoder / PyLate folder (`MultiVectorEncoder.from_pretrained`), or a dense model (a preset such
   as minilm-l6, or a folder) turned into one by `MultiVectorEncoder.from_sentence_encoder`: the same backbone and
   tokenizer, a new bias-free projection to `--dim` (128) on every token state, unit token vectors, queries filled
   with [MASK] to `--query-length` (32, not attended: classic ColBERT), documents cut at `--max-length` (256) and
   scored without their punctuation.
2. Data: one (query, relevant document) pair for every relevant judgement of the train split, shuffled; each with a
   hard negative mined by BM25 (bm25s, BEIR's parameters): the query's best-scoring train document not judged
   relevant to it, the k-th pair of a query taking the k-th (`lexical_negatives`). A document relevant to another
   query of the batch is no negative for it (`MaxSimRankingLoss(relevant_pairs=…)`). `--triples` writes the
   (query, positive, negative) rows: benchmarks/late_interaction.py trains its anchor on the same ones.
3. Loss: `MaxSimRankingLoss` (scale 1, as sentence-transformers' and PyLate's contrastive losses) over the batch's
   positives and negatives; AdamW (weight decay 0.01), linear warm-up (10 %) then decay, gradient norm clipped at 1.
4. Choices on dev: after every epoch the dev split's nDCG@10 (exact MaxSim); the best epoch's weights are kept. The
   test split is read once, at the end (`--skip-test`: not at all, the caller measures it).

The last line printed is a JSON report (also `<output>/report.json`): pairs, steps, dev nDCG@10 by epoch, the test
measures (null with `--skip-test`) and the seconds spent; the model is saved as `<output>/multi_vector_encoder.keras`.
"""

import argparse
import json
import os
import time

import keras
import numpy as np

from keras_sentemb import MultiVectorEncoder, SentenceEncoder
from keras_sentemb.data.beir_folder import read_beir_folder
from keras_sentemb.evaluation import evaluate_beir
from keras_sentemb.losses import MaxSimRankingLoss
from keras_sentemb.models.multi_vector_training import MultiVectorTraining, multi_vector_dataset
from keras_sentemb.pretrained.multi_vector_folder import is_multi_vector_folder
from keras_sentemb.retrieval.lexical_index import LexicalIndex, lexical_options
from keras_sentemb.training import LinearWarmupLinearDecay, RetrievalEvaluator
from keras_sentemb.utils.atomic_files import atomic_open


def colbert_model(spec, dim, query_length, max_length, seed):
    """A MultiVectorEncoder folder as it is, anything else through `from_sentence_encoder`."""
    if os.path.isdir(spec) and is_multi_vector_folder(spec):
        return MultiVectorEncoder.from_pretrained(spec, max_length=max_length)
    dense = SentenceEncoder.from_pretrained(spec, max_length=max_length)
    return MultiVectorEncoder.from_sentence_encoder(dense, dim=dim, query_length=query_length, seed=seed)


def relevant_pairs(collection):
    """Every (query row, document row) judged relevant (grade > 0) in `collection`."""
    query_row = {q: i for i, q in enumerate(collection.query_ids)}
    document_row = {d: i for i, d in enumerate(collection.document_ids)}
    return np.asarray(
        [(query_row[q], document_row[d]) for q, judged in collection.qrels.items() for d, g in judged.items() if g > 0],
        np.int64,
    )


def lexical_negatives(train, pairs, positives, depth=100):
    """For each (query row, document row) pair, a hard negative row: the query's BM25-best train documents not judged
    relevant to it, the query's k-th pair taking the k-th (its pairs get different negatives)."""
    relevant = {}
    for query, document in positives:
        relevant.setdefault(int(query), set()).add(int(document))
    queries = sorted({int(q) for q, _ in pairs})
    index = LexicalIndex(train.documents, lexical_options(True))
    ids, _ = index.search([train.queries[q] for q in queries], depth)
    candidates = {q: [int(d) for d in row if d >= 0 and int(d) not in relevant[q]] for q, row in zip(queries, ids)}
    turn, negatives = {}, []
    for query, _ in pairs:
        query = int(query)
        found = candidates[query] or [int(d) for d in range(len(train.documents)) if d not in relevant[query]]
        negatives.append(found[turn.get(query, 0) % len(found)])
        turn[query] = turn.get(query, 0) + 1
    return np.asarray(negatives, np.int64)


def training_triples(train, max_pairs, seed):
    """(pairs [n, 2] of (query row, document row), negatives [n], every relevant (query row, document row)): the
    judged pairs shuffled with `seed`, the first `max_pairs` (0: all), each with its BM25 negative."""
    positives = relevant_pairs(train)
    order = np.random.default_rng(seed).permutation(len(positives))
    pairs = positives[order[:max_pairs] if max_pairs else order]
    return pairs, lexical_negatives(train, pairs, positives), positives


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--beir", required=True, help="BEIR folder: corpus, queries, qrels/train|dev|test.tsv")
    parser.add_argument("--model", default="minilm-l6", help="a MultiVectorEncoder folder, or a dense preset / folder")
    parser.add_argument("--dim", type=int, default=128, help="a dense model's new projection: token vector width")
    parser.add_argument("--query-length", type=int, default=32, help="query tokens after [MASK] expansion")
    parser.add_argument("--max-length", type=int, default=256, help="tokens a document (cut there)")
    parser.add_argument("--epochs", type=int, default=1)
    parser.add_argument("--batch-size", type=int, default=16)
    parser.add_argument("--learning-rate", type=float, default=2e-5)
    parser.add_argument("--warmup", type=float, default=0.1)
    parser.add_argument("--max-pairs", type=int, default=0, help="train on at most this many pairs (0: all)")
    parser.add_argument("--triples", help="write the (query, positive, negative) rows trained on to this JSON file")
    parser.add_argument(
        "--skip-test", action="store_true", help="leave the test split to the caller (benchmarks/late_interaction.py)"
    )
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--output", default=os.path.join("out", "train_colbert"))
    args = parser.parse_args()
    keras.utils.set_random_seed(args.seed)
    start = time.perf_counter()
    train = read_beir_folder(args.beir, split="train")
    dev = read_beir_folder(args.beir, split="dev")
    encoder = colbert_model(args.model, args.dim, args.query_length, args.max_length, args.seed)
    pairs, negatives, positives = training_triples(train, args.max_pairs, args.seed)
    queries = [train.queries[q] for q, _ in pairs]
    documents = [[train.documents[d] for _, d in pairs], [train.documents[d] for d in negatives]]
    if args.triples:
        with atomic_open(args.triples, "wb") as f:
            f.write(json.dumps([list(row) for row in zip(queries, *documents)]).encode("utf-8"))
    ids = np.stack([pairs[:, 0], pairs[:, 1], negatives], axis=1)
    data = multi_vector_dataset(encoder, queries, documents, ids=ids, batch_size=args.batch_size, seed=args.seed)
    steps = len(data) * args.epochs
    training = MultiVectorTraining(encoder)
    training.compile(
        optimizer=keras.optimizers.AdamW(
            LinearWarmupLinearDecay(args.learning_rate, steps, args.warmup), weight_decay=0.01, global_clipnorm=1.0
        ),
        loss=MaxSimRankingLoss(relevant_pairs=positives),
    )
    print(f"{len(pairs)} triples, {steps} steps of {args.batch_size}, learning rate {args.learning_rate}")
    os.makedirs(args.output, exist_ok=True)
    evaluator = RetrievalEvaluator(encoder, dev, name="dev", restore_best_weights=True)
    fit_start = time.perf_counter()
    history = training.fit(data, epochs=args.epochs, callbacks=[evaluator], verbose=1)
    fit_seconds = time.perf_counter() - fit_start
    encoder.forget_traced_functions()
    after = None if args.skip_test else evaluate_beir(encoder, read_beir_folder(args.beir, "test"), progress=False)
    encoder.save(os.path.join(args.output, "multi_vector_encoder.keras"))
    report = {
        "model": args.model,
        "pairs": len(pairs),
        "steps": steps,
        "batch_size": args.batch_size,
        "dev_ndcg_at_10_by_epoch": [round(v, 2) for v in history.history.get("dev_ndcg@10", [])],
        "test": after and {name: round(value, 2) for name, value in after.metrics.items()},
        "fit_seconds": round(fit_seconds, 1),
        "seconds": round(time.perf_counter() - start, 1),
    }
    with atomic_open(os.path.join(args.output, "report.json"), "wb") as f:
        f.write(json.dumps(report, indent=1).encode("utf-8"))
    print(json.dumps(report))


if __name__ == "__main__":
    main()
