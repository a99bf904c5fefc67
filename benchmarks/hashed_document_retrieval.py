"""The hashing layer on documents: NFCorpus test the MTEB way over a hashed model's binary codes.

    python benchmarks/hashed_document_retrieval.py [--model zoo:minilm-l6-hash512-nested] [--beir DIR]

For the zoo's nested 512-bit MiniLM codes, with documents truncated (MTEB's setting) and cut into
128-piece chunks (16 shared, ending at sentence ends; a document scores as its best chunk), in one run
(each document encoding done once): the float vectors' exact search (the reference) and, at 64 / 128 /
256 / 512 bits (the nested code's prefixes), Hamming search through `BinaryIndex` alone and with its
best 100 or 1,000 candidates rescored by the float vectors or their int8 rows (`evaluate_beir(...,
codes=[CodeSearch(...)])`): 100 = 10 × nDCG@10's cut-off, 1,000 = 10 × recall@100's, what an index
folder's `search(k, rerank=10)` rescores for k = 10 and k = 100. Each row: nDCG@10, its share of the float model's, recall@100, bytes a
document in the index (codes, plus rescoring rows), and queries/s (encoding the queries included).
Prints a table and one JSON line; `--plot` draws each prefix's share with and without rescoring.
"""

import argparse
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from benchmarks.common import SHARED_DATA, cpu_flags, machine_description, save_figure  # noqa: E402
from keras_sentemb.chunking import Chunking  # noqa: E402
from keras_sentemb.data.beir_folder import read_beir_folder  # noqa: E402
from keras_sentemb.evaluation.beir_retrieval import evaluate_beir  # noqa: E402
from keras_sentemb.evaluation.code_retrieval import CodeSearch  # noqa: E402
from keras_sentemb.zoo.loading import load_any_encoder  # noqa: E402

PREFIXES = (64, 128, 256, 512)
CANDIDATES = (100, 1000)
SETTINGS = {
    "truncated": None,
    "chunks 128/16": Chunking(size=128, overlap=16, sentences=True, pooling=None),
}


def measure(hashed, collection, chunking, batch_size):
    searches = [CodeSearch(bits) for bits in PREFIXES] + [
        CodeSearch(bits, rescore, candidates)
        for candidates in CANDIDATES
        for bits in PREFIXES
        for rescore in ("int8", "float")
    ]
    result = evaluate_beir(
        hashed,
        collection,
        batch_size=batch_size,
        codes=searches,
        document_options={} if chunking is None else {"chunking": chunking},
    )
    reference = result.stages["dense"]["ndcg@10"]
    rows = []
    for stage, metrics in result.stages.items():
        search = next((s for s in searches if str(s) == stage), None)
        rows.append(
            {
                "stage": "float32 vectors (exact)" if search is None else stage,
                "bits": None if search is None else search.bits,
                "rescore": None if search is None else search.rescore,
                "candidates": None if search is None or search.rescore is None else search.candidates,
                "ndcg@10": round(metrics["ndcg@10"], 2),
                "share_of_float": round(100 * metrics["ndcg@10"] / reference, 1),
                "recall@100": round(metrics["recall@100"], 2),
                "bytes_per_document": round(result.bytes_per_document[stage], 1),
                "queries_per_second": round(result.queries / result.seconds_of[stage], 1),
            }
        )
    return {"document_seconds": round(result.seconds_of["documents dense"], 1), "rows": rows}


def plot(results, path):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    figure, axes = plt.subplots(1, len(results), figsize=(6 * len(results), 4), squeeze=False, sharey=True)
    for axis, (setting, result) in zip(axes[0], results.items()):
        series = [(None, None, "#c84", "-")] + [
            (rescore, candidates, colour, style)
            for candidates, style in zip(CANDIDATES, ("--", "-"))
            for rescore, colour in (("int8", "#48c"), ("float", "#3a7"))
        ]
        for rescore, candidates, colour, style in series:
            rows = [
                row
                for row in result["rows"]
                if row["bits"] and row["rescore"] == rescore and row["candidates"] == candidates
            ]
            axis.plot(
                [row["bits"] for row in rows],
                [row["share_of_float"] for row in rows],
                "o" + style,
                color=colour,
                label=f"Hamming, best {candidates} rescored ({rescore})" if rescore else "Hamming only",
            )
        axis.axhline(98, color="#c33", linestyle="--", label="98 % of float")
        axis.set_xscale("log", base=2)
        axis.set_xticks(PREFIXES, [str(bits) for bits in PREFIXES])
        axis.set_xlabel("code bits (prefix of the nested 512-bit code)")
        axis.set_title(f"NFCorpus test, documents {setting}", fontsize=10)
        axis.legend(fontsize=8, loc="lower right")
    axes[0][0].set_ylabel("nDCG@10, % of the float model's")
    save_figure(figure, path)
    print(f"wrote {path}")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--model", default="zoo:minilm-l6-hash512-nested")
    parser.add_argument("--beir", default=os.path.join(SHARED_DATA, "beir", "nfcorpus"))
    parser.add_argument("--batch-size", type=int, default=32)
    parser.add_argument("--plot", help="write a PNG of each prefix's share of the float nDCG@10")
    args = parser.parse_args(argv)
    print(f"machine: {machine_description()}; CPU flags: {cpu_flags()}")
    collection = read_beir_folder(args.beir, split="test")
    print(f"{args.beir}: {len(collection.documents)} documents, {len(collection.queries)} test queries")
    hashed = load_any_encoder(args.model)
    results = {
        setting: measure(hashed, collection, chunking, args.batch_size) for setting, chunking in SETTINGS.items()
    }
    print()
    print("| documents | search | nDCG@10 | % of float | recall@100 | bytes a document | queries/s |")
    print("|---|---|---:|---:|---:|---:|---:|")
    for setting, result in results.items():
        for row in result["rows"]:
            print(
                f"| {setting} | {row['stage']} | {row['ndcg@10']:.2f} | {row['share_of_float']:.1f} | "
                f"{row['recall@100']:.2f} | {row['bytes_per_document']:,.1f} | {row['queries_per_second']:,.0f} |"
            )
    print(json.dumps({"benchmark": "hashed_document_retrieval", "cpu_flags": cpu_flags(), "results": results}))
    if args.plot:
        plot(results, args.plot)


if __name__ == "__main__":
    main()
