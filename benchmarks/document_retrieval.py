"""Search over documents on NFCorpus (BEIR layout): truncation vs chunking vs late chunking.

    python benchmarks/document_retrieval.py [--models minilm-l6,mpnet-base] [--beir DIR] [--plot FILE]

For each base model, in one run:
- the share of NFCorpus documents (title + " " + text) longer than the model's limit in word pieces;
- test nDCG@10 / recall@100 / MRR@10 / MAP@100 with documents truncated (MTEB's setting), beside
  MTEB's published nDCG@10 for the model (the anchor: `delta` must stay within ±0.3);
- naive chunking at two window sizes (128 pieces with 16 overlapping, sentence ends; the model's
  limit with 32 overlapping), each scored two ways: the mean of a document's chunk vectors, and
  its best chunk (max-sim, the index-folder rule);
- late chunking (chunks of 128 pieces, the document encoded in context windows of 510 pieces).
Each chunked encoding runs once; both scorings read the same chunk vectors. Prints a table and
one JSON line; `--plot` draws nDCG@10 per setting and model.
"""

import argparse
import json
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import numpy as np  # noqa: E402

from benchmarks.common import SHARED_DATA, cpu_flags, machine_description  # noqa: E402
from keras_sentemb import SentenceEncoder  # noqa: E402
from keras_sentemb.chunking import Chunking  # noqa: E402
from keras_sentemb.data.beir_folder import read_beir_folder  # noqa: E402
from keras_sentemb.evaluation.beir_retrieval import measure_retrieval  # noqa: E402
from keras_sentemb.evaluation.trec_measures import mean_measures  # noqa: E402

# MTEB's published NFCorpus test nDCG@10 (× 100), the leaderboard's figures for these models
MTEB_NDCG_AT_10 = {"minilm-l6": 31.59, "mpnet-base": 33.29}


def settings(limit):
    return [
        ("truncation", None),
        ("chunks 128/16 + sentence ends", Chunking(size=128, overlap=16, sentences=True, pooling=None)),
        (f"chunks {limit}/32", Chunking(size=limit, overlap=32, pooling=None)),
        ("late chunking 128 (context 510)", Chunking(size=128, late=True, pooling=None)),
    ]


def measure_model(name, collection, batch_size, progress):
    encoder = SentenceEncoder.from_pretrained(name)
    limit = encoder.tokenizer.max_length - 2
    lengths = np.array([len(ids) for ids, _ in encoder.tokenizer.content_ids_with_offsets(collection.documents)])
    queries = encoder.encode_query(collection.queries, batch_size=batch_size, progress=False)
    rows = []
    for label, chunking in settings(limit):
        start = time.perf_counter()
        options = {} if chunking is None else {"chunking": chunking}
        documents = encoder.encode_document(collection.documents, batch_size=batch_size, progress=progress, **options)
        seconds = time.perf_counter() - start
        scorings = (
            [("", documents)]
            if chunking is None
            else [(" · mean", documents.pooled("mean")), (" · best chunk", documents)]
        )
        for suffix, vectors in scorings:
            metrics = mean_measures(measure_retrieval(collection, queries, vectors))
            rows.append(
                {
                    "model": name,
                    "setting": label + suffix,
                    **{key: round(value, 2) for key, value in metrics.items()},
                    "chunks": int(len(documents)) if chunking is not None else len(collection.documents),
                    "encode_seconds": round(seconds, 1),
                }
            )
            print(f"  {name:11s} {rows[-1]['setting']:42s} nDCG@10 {metrics['ndcg@10']:6.2f}", flush=True)
    return {
        "limit": limit,
        "longer_than_limit": float(np.mean(lengths > limit)),
        "longer_than_510": float(np.mean(lengths > 510)),
        "mean_pieces": float(lengths.mean()),
        "rows": rows,
    }


def plot(results, path):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    figure, axes = plt.subplots(1, len(results), figsize=(6.5 * len(results), 4.5), squeeze=False)
    for axis, (name, result) in zip(axes[0], results.items()):
        labels = [row["setting"] for row in result["rows"]]
        values = [row["ndcg@10"] for row in result["rows"]]
        axis.barh(range(len(values)), values, color=["#888"] + ["#3a7"] * (len(values) - 1))
        axis.axvline(
            MTEB_NDCG_AT_10[name], color="#c33", linestyle="--", label=f"MTEB published {MTEB_NDCG_AT_10[name]}"
        )
        axis.set_yticks(range(len(values)), labels, fontsize=8)
        axis.invert_yaxis()
        axis.set_xlim(min(values) - 2, max(values) + 1)
        axis.set_xlabel("NFCorpus test nDCG@10")
        axis.set_title(
            f"{name}: {result['longer_than_limit']:.0%} of documents > {result['limit']} pieces", fontsize=10
        )
        axis.legend(loc="lower right", fontsize=8)
    figure.tight_layout()
    figure.savefig(path, dpi=110)
    print(f"wrote {path}")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--models", default="minilm-l6,mpnet-base")
    parser.add_argument("--beir", default=os.path.join(SHARED_DATA, "beir", "nfcorpus"))
    parser.add_argument("--batch-size", type=int, default=32)
    parser.add_argument("--plot", help="write a PNG of nDCG@10 per setting")
    parser.add_argument("--progress", action="store_true")
    args = parser.parse_args(argv)
    print(f"machine: {machine_description()}; CPU flags: {cpu_flags()}")
    collection = read_beir_folder(args.beir, split="test")
    print(f"{args.beir}: {len(collection.documents)} documents, {len(collection.queries)} test queries")
    results = {}
    for name in args.models.split(","):
        results[name] = measure_model(name, collection, args.batch_size, args.progress or None)
    print()
    print(
        "| model | documents > limit | setting | nDCG@10 | MTEB | delta | recall@100 | MRR@10 | MAP@100 | chunks | s |"
    )
    print("|---|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    for name, result in results.items():
        for row in result["rows"]:
            anchor = MTEB_NDCG_AT_10.get(name)
            truncation = row["setting"] == "truncation"
            mteb = f"{anchor:.2f}" if truncation and anchor else ""
            delta = f"{row['ndcg@10'] - anchor:+.2f}" if truncation and anchor else ""
            share = f"{result['longer_than_limit']:.1%} > {result['limit']}" if truncation else ""
            print(
                f"| {name} | {share} | {row['setting']} | {row['ndcg@10']:.2f} | {mteb} | {delta} | "
                f"{row['recall@100']:.2f} | {row['mrr@10']:.2f} | {row['map@100']:.2f} | {row['chunks']} | "
                f"{row['encode_seconds']:.0f} |"
            )
    print(json.dumps({"benchmark": "document_retrieval", "cpu_flags": cpu_flags(), "results": results}))
    if args.plot:
        plot(results, args.plot)


if __name__ == "__main__":
    main()
