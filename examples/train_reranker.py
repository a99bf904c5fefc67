"""Train a reranker: a cross-encoder that re-orders a first stage's best documents, on a BEIR folder's train qrels.

A plain Keras script over a BEIR-layout folder (corpus.jsonl, queries.jsonl, qrels/{train,dev,test}.tsv):

    python examples/train_reranker.py --beir DATA/beir/nfcorpus \
        --first-stage out/train_retrieval_minilm/encoder.keras --init-from out/train_retrieval_minilm/encoder.keras

1. Training pairs: one round of the train qrels a epoch (`query_rounds`: one relevant document a query, so
   every query weighs the same), labelled grade / the highest grade (NFCorpus: 2 → 1.0, 1 → 0.5); and for
   each, labelled 0, `--negatives` documents mined by the first stage's bi-encoder (`mine_hard_negatives`: a
   random draw from its ranks `--mine-ranks` among the documents not judged relevant, skipping any within 5 %
   of the query's best positive: NFCorpus's unjudged top documents are often relevant ones) and
   `--random-negatives` drawn from the whole collection.
2. The model: `CrossEncoder` (BERT/MiniLM, one label, sigmoid scores) on `--model`'s weights, or on the
   backbone of the bi-encoder `--init-from` (a `.keras` SentenceEncoder, e.g. the NFCorpus-tuned MiniLM:
   its token states already separate the collection's topics), with `--pooling` (mean: what a bi-encoder
   was trained to pool). Loss: binary cross-entropy on the logit (sentence-transformers'
   `BinaryCrossEntropyLoss`); AdamW 1e-4, 10 % warm-up, linear decay, batch 16, gradients clipped at 1 (at
   2e-5 the new head learned nothing in two NFCorpus epochs: the loss stayed at the labels' entropy).
3. Choices on dev, never test: after each epoch the dev queries' first-stage top `--dev-depth` are
   reranked and the best epoch's weights kept; then the first stage's top `--top` (100) of dev and test
   are scored once, and on dev the reranked order is compared with a convex combination of the reranker's
   and the first stage's min-max normalised scores (`ConvexFusion`, reranker weight 0.1 … 0.9): the better
   on dev is what test reports.
4. The first stage: the bi-encoder `--first-stage` fused with BM25 (`Bm25()`, BEIR's parameters), the
   fusion chosen on dev (`choose_fusion`), the best first stage of docs/hybrid_retrieval.md.

The test split is read once, at the end. A killed run resumes from `<output>/backup` at its last finished
epoch. Writes `<output>/reranker.keras` (float32) and `<output>/report.json`.
"""

import argparse
import json
import os
import time

import keras
import numpy as np

from keras_sentemb.data.beir_folder import read_beir_folder
from keras_sentemb.data.examples import ScoredPairs
from keras_sentemb.data.pipelines import cross_pairs_dataset
from keras_sentemb.evaluation.beir_retrieval import (
    RUN_FLOORS,
    dense_run,
    encode_for_retrieval,
    measure_run,
    reordered_run,
    reranker_head_scores,
)
from keras_sentemb.evaluation.fusion_choice import CONVEX_WEIGHTS, choose_fusion, fusion_candidates
from keras_sentemb.evaluation.trec_measures import mean_measures
from keras_sentemb.models import CrossEncoder
from keras_sentemb.retrieval.lexical_index import Bm25, LexicalIndex
from keras_sentemb.retrieval.ranked_runs import ranked_ids, run_of
from keras_sentemb.retrieval.run_fusion import ConvexFusion
from keras_sentemb.training import LinearWarmupLinearDecay, mine_hard_negatives, query_rounds
from keras_sentemb.training.best_epoch import BestEpochCallback
from keras_sentemb.training.resumable_run import ResumableRun
from keras_sentemb.utils.atomic_files import atomic_open
from keras_sentemb.zoo.loading import load_sentence_encoder as load_encoder


def first_stage_runs(encoder, collections, bm25):
    """{split: the first stage's run}: the dense and BM25 runs of each collection (same documents),
    fused by the fusion `choose_fusion` picks on "dev"; and that fusion's name."""
    documents = collections["dev"].documents
    document_vectors = encode_for_retrieval(encoder, "encode_document", documents, 64, True)
    index = LexicalIndex(documents, bm25)
    pairs = {}
    for split, collection in collections.items():
        query_vectors = encode_for_retrieval(encoder, "encode_query", collection.queries, 64, False)
        ids, scores = index.search(collection.queries, 1000)
        pairs[split] = [
            dense_run(collection, query_vectors, document_vectors, 1000),
            run_of(collection.query_ids, collection.document_ids, ids, scores),
        ]
    fusion, _ = choose_fusion(pairs["dev"], collections["dev"].qrels, fusion_candidates(floors=RUN_FLOORS))
    return {split: fusion.fuse(runs, 1000) for split, runs in pairs.items()}, str(fusion)


def head_of(run, top):
    """Each query's best `top` documents of `run`, with their scores."""
    return {query: {d: scores[d] for d in ranked_ids(scores)[:top]} for query, scores in run.items()}


class RerankingEvaluator(BestEpochCallback):
    """After each epoch: dev nDCG@10 of the first stage's top `depth` reranked by the model's float32 twin
    (`dev_ndcg@10` in the epoch logs); the best epoch's bookkeeping, its weights kept in `best_weights_path`
    and restored at the end, is `BestEpochCallback`'s."""

    score_key = "ndcg@10"

    def __init__(self, twin, collection, run, depth, best_weights_path):
        super().__init__("dev", restore_best_weights=True, best_weights_path=best_weights_path)
        self.twin, self.collection, self.run, self.depth, self.by_epoch = twin, collection, run, depth, []

    def epoch_metrics(self):
        self.twin.set_weights(self.model.get_weights())
        scored = reranker_head_scores(self.collection, self.run, self.twin, self.depth, 32, True)
        ndcg = mean_measures(measure_run(reordered_run(self.run, scored, self.depth), self.collection.qrels))["ndcg@10"]
        self.by_epoch.append(round(ndcg, 2))
        return {"ndcg@10": ndcg}

    def describe(self, metrics):
        return f"nDCG@10 reranking the top {self.depth}: {metrics['ndcg@10']:.2f}"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--beir", required=True, help="BEIR folder: corpus, queries, qrels/train|dev|test.tsv")
    parser.add_argument("--first-stage", default="minilm-l6", help="the bi-encoder: a preset, folder or .keras")
    parser.add_argument("--model", default="minilm-l6", help="the cross-encoder's preset or folder (BERT/MPNet)")
    parser.add_argument("--init-from", default=None, help="a .keras SentenceEncoder whose backbone seeds the model")
    parser.add_argument("--pooling", choices=["pooler", "cls", "mean"], default="mean")
    parser.add_argument("--dtype", default=None, help="the training backbone's dtype policy, e.g. mixed_bfloat16")
    parser.add_argument("--max-length", type=int, default=256)
    parser.add_argument("--negatives", type=int, default=2, help="mined negatives a positive")
    parser.add_argument(
        "--mine-ranks",
        default="20:200",
        help="FROM:TO: mined negatives come from these ranks of the bi-encoder's documents not judged relevant "
        "(a random draw; NFCorpus's unjudged top documents are often relevant ones)",
    )
    parser.add_argument(
        "--random-negatives", type=int, default=1, help="documents drawn at random (not judged relevant) a positive"
    )
    parser.add_argument("--epochs", type=int, default=1)
    parser.add_argument("--batch-size", type=int, default=16)
    parser.add_argument(
        "--learning-rate",
        type=float,
        default=1e-4,
        help="peak (the head is new: at 2e-5 two NFCorpus epochs left the loss at the labels' entropy)",
    )
    parser.add_argument("--top", type=int, default=100, help="the documents a query's reranker reads")
    parser.add_argument("--dev-depth", type=int, default=20, help="the epochs' dev check reranks this many")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--output", default=os.path.join("out", "train_reranker"))
    args = parser.parse_args()
    keras.utils.set_random_seed(args.seed)
    start = time.perf_counter()
    collections = {split: read_beir_folder(args.beir, split=split) for split in ("train", "dev", "test")}
    train = collections["train"]
    first_stage = load_encoder(args.first_stage)
    runs, fusion = first_stage_runs(first_stage, {s: collections[s] for s in ("dev", "test")}, Bm25())
    print(f"first stage: {args.first_stage} + BM25, {fusion} (chosen on dev)", flush=True)

    query_row = {q: i for i, q in enumerate(train.query_ids)}
    document_row = {d: i for i, d in enumerate(train.document_ids)}
    graded = [
        (query_row[q], document_row[d], grade) for q, judged in train.qrels.items() for d, grade in judged.items()
    ]
    positives = np.asarray([(q, d) for q, d, grade in graded if grade > 0], np.int64)
    grade_of = {(q, d): grade for q, d, grade in graded}
    top_grade = max(grade for _, _, grade in graded)
    pairs = query_rounds(positives, args.epochs, seed=args.seed)
    range_min, range_max = (int(rank) for rank in args.mine_ranks.split(":"))
    mined = mine_hard_negatives(
        first_stage,
        train.queries,
        train.documents,
        pairs,
        num_negatives=args.negatives,
        range_min=range_min,
        range_max=range_max,
        sampling="random",
        relative_to="query",
        known_positives=positives,
        seed=args.seed,
        progress=True,
    )
    del first_stage
    examples = [(int(q), int(d), grade_of[(int(q), int(d))] / top_grade) for q, d in pairs]
    examples += [(int(q), int(n), 0.0) for q, _, n in mined.ids]
    rng = np.random.default_rng(args.seed)
    judged = {(int(q), int(d)) for q, d in positives}
    for q, _ in pairs:
        drawn = 0
        while drawn < args.random_negatives:
            document = int(rng.integers(len(train.documents)))
            if (int(q), document) not in judged:
                examples.append((int(q), document, 0.0))
                drawn += 1
    order = rng.permutation(len(examples))
    examples = [examples[i] for i in order]
    training = ScoredPairs(
        [train.queries[q] for q, _, _ in examples],
        [train.documents[d] for _, d, _ in examples],
        [label for _, _, label in examples],
    )
    print(
        f"{len(pairs)} positives + {len(mined.ids)} mined negatives ({mined.skipped} without one) + "
        f"{len(pairs) * args.random_negatives} random ones",
        flush=True,
    )

    def cross_encoder(dtype):
        model = CrossEncoder.from_pretrained(
            args.model, pooling=args.pooling, dtype=dtype, max_length=args.max_length, score_activation="sigmoid"
        )
        if args.init_from:
            model.backbone.set_weights(load_encoder(args.init_from).backbone.get_weights())
        return model

    model, twin = cross_encoder(args.dtype), cross_encoder(None)
    data = cross_pairs_dataset(
        training,
        model.tokenizer,
        labels=np.asarray(training.scores, np.float32),
        batch_size=args.batch_size,
        seed=args.seed,
        input_names=model.input_names,
    )
    steps_per_epoch = len(data) // args.epochs  # one round of the queries an epoch
    run = ResumableRun(args.output)
    if run.finished_epochs:
        data = data.skip(run.finished_epochs * steps_per_epoch)
    model.compile(
        optimizer=keras.optimizers.AdamW(
            LinearWarmupLinearDecay(args.learning_rate, steps_per_epoch * args.epochs, 0.1),
            weight_decay=0.01,
            global_clipnorm=1.0,
        ),
        loss=keras.losses.BinaryCrossentropy(from_logits=True),
    )
    os.makedirs(args.output, exist_ok=True)
    evaluator = RerankingEvaluator(twin, collections["dev"], runs["dev"], args.dev_depth, run.best_weights_path)
    model.fit(
        data, epochs=args.epochs, steps_per_epoch=steps_per_epoch, callbacks=[evaluator, *run.callbacks()], verbose=2
    )
    twin.set_weights(model.get_weights())
    twin.save(os.path.join(args.output, "reranker.keras"))

    measured, choice = {}, {}
    for split in ("dev", "test"):  # test last, once
        collection, first = collections[split], runs[split]
        began = time.perf_counter()
        scored = reranker_head_scores(collection, first, twin, args.top, 32, True)
        seconds = time.perf_counter() - began
        candidates = {"rerank": reordered_run(first, scored, args.top)}
        for weight in CONVEX_WEIGHTS:
            fused = ConvexFusion(weight).fuse([scored, head_of(first, args.top)], args.top)
            candidates[f"convex(reranker {weight})"] = {q: fused[q] for q in first}
        per = {name: mean_measures(measure_run(r, collection.qrels)) for name, r in candidates.items()}
        if split == "dev":
            choice = {name: round(m["ndcg@10"], 2) for name, m in per.items()}
            chosen = max(per, key=lambda name: per[name]["ndcg@10"])
        measured[split] = {
            "first stage": {k: round(v, 2) for k, v in mean_measures(measure_run(first, collection.qrels)).items()},
            "rerank": {k: round(v, 2) for k, v in per["rerank"].items()},
            chosen: {k: round(v, 2) for k, v in per[chosen].items()},
            "rerank queries/s": round(len(collection.queries) / seconds, 2),
        }
        print(split, json.dumps(measured[split]), flush=True)
    report = {
        "first_stage": f"{args.first_stage} + BM25, {fusion}",
        "model": args.model,
        "init_from": args.init_from,
        "pooling": args.pooling,
        "dtype": args.dtype or "float32",
        "max_length": args.max_length,
        "positives": len(pairs),
        "mined_negatives": len(mined.ids),
        "mined_ranks": args.mine_ranks,
        "random_negatives": len(pairs) * args.random_negatives,
        "epochs": args.epochs,
        "dev_ndcg_at_10_by_epoch": evaluator.by_epoch,
        "best_epoch": None if evaluator.best_epoch is None else evaluator.best_epoch + 1,
        "chosen_on_dev": chosen,
        "dev_choice": choice,
        "measured": measured,
        "fit_s": round(run.fit_seconds),
        "wall_time_s": round(time.perf_counter() - start),
    }
    with atomic_open(os.path.join(args.output, "report.json"), "w") as f:
        f.write(json.dumps(report, indent=1) + "\n")
    print(json.dumps(report))


if __name__ == "__main__":
    main()
