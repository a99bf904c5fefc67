"""Retrieval as production search builds it, on NFCorpus test: dense, BM25, their fusions, each + a reranker.

    python benchmarks/retrieval_pipeline.py [--models minilm-l6,mpnet-base,LABEL=PATH] [--beir DIR] [--plot FILE]
        [--reranker MODEL [--rerank-top 100]]

For each model, in one run (its documents encoded once):
- dense: exact cosine over the model's vectors (MTEB's setting; anchor: MTEB's published nDCG@10);
- BM25: `LexicalIndex` (bm25s, k1 1.2, b 0.75, English stemming and stop words; anchor: BEIR's
  published 32.5 for Elasticsearch's BM25);
- RRF: reciprocal-rank fusion of the two (k = 60, no tuning);
- convex: the convex combination (theoretical min-max: floors −1 and 0) at the dense weight that
  scores best on the dev qrels;
- hybrid: whichever of RRF and the convex weights scores best on dev (what `evaluate_beir(...,
  lexical=True)` reports), and its gain over max(dense, BM25) on test.
Each stage's nDCG@10, recall@100 and its queries/s (the queries' own work: encoding and exact search
for dense, tokenising and scoring for BM25, the fusion for the hybrids, which also needs both runs).
With `--reranker` (zoo:NAME, a .keras cross-encoder or a sentence-transformers reranker folder), each of
dense, BM25, RRF and convex again with its best `--rerank-top` documents re-ordered by the reranker
(`reranked_run`, as `evaluate_beir(rerank=…)`): the rows "… + rerank", whose queries/s is the reranker's
own (`--rerank-top` pairs a query; a pair another row already scored is scored once, its time counted once).
Prints a table, then one JSON line; `--plot` draws nDCG@10 per stage and model.
"""

import argparse
import json
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from benchmarks.common import SHARED_DATA, cpu_flags, machine_description, save_figure  # noqa: E402
from keras_sentemb.data.beir_folder import read_beir_folder  # noqa: E402
from keras_sentemb.evaluation.beir_retrieval import (  # noqa: E402
    RUN_FLOORS,
    dense_run,
    encode_for_retrieval,
    measure_run,
    reranked_run,
)
from keras_sentemb.evaluation.fusion_choice import CONVEX_WEIGHTS, choose_fusion, fusion_candidates  # noqa: E402
from keras_sentemb.evaluation.trec_measures import mean_measures  # noqa: E402
from keras_sentemb.retrieval.lexical_index import LexicalIndex  # noqa: E402
from keras_sentemb.retrieval.ranked_runs import run_of  # noqa: E402
from keras_sentemb.retrieval.run_fusion import ConvexFusion, ReciprocalRankFusion  # noqa: E402
from keras_sentemb.zoo.loading import load_any_encoder, load_cross_encoder  # noqa: E402

# Published NFCorpus test nDCG@10 (× 100): MTEB's leaderboard for the models, the BEIR paper for BM25
PUBLISHED = {"minilm-l6": 31.59, "mpnet-base": 33.29, "bm25": 32.5}


def timed(work):
    start = time.perf_counter()
    result = work()
    return result, time.perf_counter() - start


def lexical_runs(index, collections):
    """{split: (BM25 run, seconds)} of each split's queries."""
    runs = {}
    for split, collection in collections.items():
        ids_scores, seconds = timed(lambda c=collection: index.search(c.queries, 1000))
        runs[split] = (run_of(collection.query_ids, collection.document_ids, *ids_scores), seconds)
    return runs


def dense_runs(encoder, collections, batch_size, progress):
    """{split: (dense run, seconds)} and the documents' encoding seconds."""
    documents, document_seconds = timed(
        lambda: encode_for_retrieval(encoder, "encode_document", collections["test"].documents, batch_size, progress)
    )
    runs = {}
    for split, collection in collections.items():

        def run(c=collection):
            queries = encode_for_retrieval(encoder, "encode_query", c.queries, batch_size, False)
            return dense_run(c, queries, documents)

        runs[split] = timed(run)
    return runs, document_seconds


class ScoredOnce:
    """A reranker whose `predict_pairs` scores each (query, document) pair once over the whole benchmark (the
    stages' top documents overlap), timing the pairs it scores: `pairs_per_second`."""

    def __init__(self, reranker):
        self.reranker, self.scores, self.seconds = reranker, {}, 0.0

    def predict_pairs(self, first, second, batch_size=64, progress=None):
        missing = list(dict.fromkeys(pair for pair in zip(first, second) if pair not in self.scores))
        if missing:
            start = time.perf_counter()
            scores = self.reranker.predict_pairs(
                [q for q, _ in missing], [d for _, d in missing], batch_size=batch_size, progress=progress
            )
            self.seconds += time.perf_counter() - start
            self.scores.update(zip(missing, scores.tolist()))
        return [self.scores[pair] for pair in zip(first, second)]

    @property
    def pairs_per_second(self):
        return len(self.scores) / self.seconds if self.seconds else float("nan")


def row(stage, run, seconds, collection):
    metrics = mean_measures(measure_run(run, collection.qrels))
    return {
        "stage": stage,
        "ndcg@10": round(metrics["ndcg@10"], 2),
        "recall@100": round(metrics["recall@100"], 2),
        "queries_per_second": round(len(collection.queries) / seconds, 1),
    }


def measure_model(name, spec, collections, lexical, batch_size, progress, reranker=None, rerank_top=100):
    encoder = load_any_encoder(spec)
    dense, document_seconds = dense_runs(encoder, collections, batch_size, progress)
    test = collections["test"]
    rows = [row("dense", *dense["test"], test), row("BM25", *lexical["test"], test)]
    pair = {split: [dense[split][0], lexical[split][0]] for split in collections}
    both = dense["test"][1] + lexical["test"][1]  # a fused query needs both runs first
    rrf = ReciprocalRankFusion()
    fused, seconds = timed(lambda: rrf.fuse(pair["test"]))
    rows.append(row("RRF", fused, both + seconds, test))
    convex, convex_dev = choose_fusion(
        pair["dev"], collections["dev"].qrels, [ConvexFusion(w, RUN_FLOORS) for w in CONVEX_WEIGHTS]
    )
    fused, seconds = timed(lambda: convex.fuse(pair["test"]))
    rows.append(row(f"convex (w {convex.weight:g} on dev)", fused, both + seconds, test))
    hybrid, hybrid_dev = choose_fusion(pair["dev"], collections["dev"].qrels, fusion_candidates(floors=RUN_FLOORS))
    fused, seconds = timed(lambda: hybrid.fuse(pair["test"]))
    rows.append(row(f"hybrid = {'RRF' if hybrid == rrf else 'convex'} (best on dev)", fused, both + seconds, test))
    hybrid_gain = rows[-1]["ndcg@10"] - max(rows[0]["ndcg@10"], rows[1]["ndcg@10"])
    if reranker is not None:
        first_stages = {
            "dense": dense["test"][0],
            "BM25": lexical["test"][0],
            "RRF": rrf.fuse(pair["test"]),
            f"convex (w {convex.weight:g} on dev)": convex.fuse(pair["test"]),
        }
        for stage, run in first_stages.items():
            reranked = reranked_run(test, run, reranker, rerank_top, batch_size=32, progress=progress)
            rows.append(row(f"{stage} + rerank", reranked, 1.0, test))
            rows[-1]["queries_per_second"] = round(reranker.pairs_per_second / rerank_top, 2)
    for line in rows:
        print(f"  {name:18s} {line['stage']:30s} nDCG@10 {line['ndcg@10']:6.2f}", flush=True)
    return {
        "documents_seconds": round(document_seconds, 1),
        "dev_ndcg@10": {key: round(value, 2) for key, value in hybrid_dev.items()},
        "hybrid": str(hybrid),
        "hybrid_gain": round(hybrid_gain, 2),
        "rows": rows,
    }


def plot(results, path):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    figure, axis = plt.subplots(figsize=(8, 0.9 + 0.5 * sum(len(r["rows"]) for r in results.values())))
    labels, values, colours = [], [], []
    for name, result in results.items():
        for line in result["rows"]:
            labels.append(f"{name} · {line['stage']}")
            values.append(line["ndcg@10"])
            colours.append(
                "#a5c"
                if line["stage"].endswith("+ rerank")
                else {"dense": "#48c", "BM25": "#c84"}.get(line["stage"], "#3a7")
            )
    axis.barh(range(len(values)), values, color=colours)
    for position, value in enumerate(values):
        axis.text(value + 0.1, position, f"{value:.2f}", va="center", fontsize=8)
    axis.axvline(PUBLISHED["bm25"], color="#c33", linestyle="--", label=f"BEIR's BM25, published {PUBLISHED['bm25']}")
    axis.set_yticks(range(len(values)), labels, fontsize=8)
    axis.invert_yaxis()
    axis.set_xlim(min(values) - 2, max(values) + 2)
    axis.set_xlabel("NFCorpus test nDCG@10")
    axis.legend(loc="lower right", fontsize=8)
    save_figure(figure, path)
    print(f"wrote {path}")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--models",
        default="minilm-l6,mpnet-base",
        help="comma-separated: presets, folders, .keras files, each optionally LABEL=PATH "
        "(e.g. minilm-l6-nfcorpus=out/train_retrieval/encoder.keras, examples/train_retrieval.py's output)",
    )
    parser.add_argument("--beir", default=os.path.join(SHARED_DATA, "beir", "nfcorpus"))
    parser.add_argument("--batch-size", type=int, default=32)
    parser.add_argument("--plot", help="write a PNG of nDCG@10 per stage and model")
    parser.add_argument("--progress", action="store_true")
    parser.add_argument("--reranker", help="also each first stage + this cross-encoder's reranking (see above)")
    parser.add_argument("--rerank-top", type=int, default=100, help="documents a query's reranker reads")
    args = parser.parse_args(argv)
    print(f"machine: {machine_description()}; CPU flags: {cpu_flags()}")
    collections = {split: read_beir_folder(args.beir, split=split) for split in ("test", "dev")}
    test = collections["test"]
    print(
        f"{args.beir}: {len(test.documents)} documents, {len(test.queries)} test and {len(collections['dev'])} dev queries"
    )
    index, index_seconds = timed(lambda: LexicalIndex(test.documents))
    lexical = lexical_runs(index, collections)
    reranker = ScoredOnce(load_cross_encoder(args.reranker)) if args.reranker else None
    results = {
        label: measure_model(
            label, spec, collections, lexical, args.batch_size, args.progress or None, reranker, args.rerank_top
        )
        for label, spec in (  # "label=path": a model file under a short label
            (model.split("=", 1)[0], model.split("=", 1)[-1]) for model in args.models.split(",")
        )
    }
    print()
    print("| model | stage | nDCG@10 | published | recall@100 | queries/s |")
    print("|---|---|---:|---:|---:|---:|")
    for name, result in results.items():
        for line in result["rows"]:
            anchor = {"dense": PUBLISHED.get(name), "BM25": PUBLISHED["bm25"]}.get(line["stage"])
            published = f"{anchor:.2f} ({line['ndcg@10'] - anchor:+.2f})" if anchor else ""
            print(
                f"| {name} | {line['stage']} | {line['ndcg@10']:.2f} | {published} | {line['recall@100']:.2f} | "
                f"{line['queries_per_second']:,.{0 if line['queries_per_second'] >= 10 else 2}f} |"
            )
    print()
    for name, result in results.items():
        print(
            f"{name}: hybrid {result['hybrid']} gains {result['hybrid_gain']:+.2f} nDCG@10 over max(dense, BM25); "
            f"documents encoded in {result['documents_seconds']:.0f} s"
        )
    print(f"BM25 index of {len(test.documents)} documents built in {index_seconds:.2f} s")
    print(
        json.dumps(
            {
                "benchmark": "retrieval_pipeline",
                "cpu_flags": cpu_flags(),
                "lexical_index_seconds": round(index_seconds, 2),
                "reranker": args.reranker,
                "rerank_top": args.rerank_top if args.reranker else None,
                "reranker_pairs_per_second": round(reranker.pairs_per_second, 1) if reranker else None,
                "results": results,
            }
        )
    )
    if args.plot:
        plot(results, args.plot)


if __name__ == "__main__":
    main()
