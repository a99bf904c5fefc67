"""Learned sparse retrieval trained and measured on a BEIR collection (issue 99, items 6 and 7): our SPLADE (trained
by examples/train_splade.py with model.fit) beside sentence-transformers' `SparseEncoderTrainer` on the same pairs,
steps, batch and seed, then both on the test split with BM25, the dense model they start from, and their hybrids.

    python benchmarks/sparse_retrieval.py --anchor-python .anchor-venv/bin/python [--beir ../shared/data/beir/nfcorpus]

1. Ours: `examples/train_splade.py --model minilm-l6` (all-MiniLM-L6-v2 + a masked-LM head tied to its word
   embeddings; `SpladeLoss`; dev nDCG@10 after each epoch, the best kept). The pairs it trains on (`training_pairs`,
   same seed) are written for the anchor.
2. Theirs: benchmarks/anchors/sparse_training_anchor.py in the anchor venv, from the same all-MiniLM-L6-v2 folder.
   Its folder is read by `SparseEncoder.from_pretrained`, so both models are measured by the same code below.
3. Test split, every model encoded once: nDCG@10 and recall@100 (trec_eval's formulas) of the exact search
   (`SparseIndex`, scipy.sparse) and of Seismic (`pyseismic-lsr`, our shipped settings), Seismic's recall@10 against
   the exact top 10, queries/s of each search (query vectors given), active dimensions a query / a document, index
   bytes a document; BM25 (BEIR's parameters) and the dense model (cosine) on the same queries; hybrids by
   reciprocal-rank fusion (k 60) of sparse + BM25, sparse + dense and all three.

Prints the CPU's flags and one table; writes `<output>/report.json`. `--max-pairs`, `--max-length` and `--epochs`
size the run (the issue's run: every train pair, 256 tokens; on two CPU cores that is hours a side).
"""

import argparse
import json
import os
import subprocess
import sys
import time

import numpy as np

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(REPO, "benchmarks"))
sys.path.insert(0, os.path.join(REPO, "examples"))
from common import add_beir_training_arguments, cpu_flags, machine_description, run_example_streaming  # noqa: E402

ANCHOR = os.path.join(REPO, "benchmarks", "anchors", "sparse_training_anchor.py")


def searched_run(test, index, queries, engine, top_k):
    """(run, queries/s) of `index.search` over the query vectors (the search alone timed)."""
    from keras_sentemb.retrieval.ranked_runs import run_of

    start = time.perf_counter()
    ids, scores = index.search(queries, top_k=top_k, engine=engine)
    seconds = time.perf_counter() - start
    return run_of(test.query_ids, test.document_ids, ids, scores), len(test.query_ids) / seconds, ids


def measured(run, test):
    from keras_sentemb.evaluation.beir_retrieval import measure_run
    from keras_sentemb.evaluation.trec_measures import mean_measures

    means = mean_measures(measure_run(run, test.qrels, ("ndcg@10", "recall@100")))
    return {"ndcg@10": round(means["ndcg@10"], 2), "recall@100": round(means["recall@100"], 2)}


def sparse_rows(name, model, test, other_runs, top_k=1000):
    """The rows of one sparse model: exact, Seismic and the hybrids with `other_runs` ({"BM25": run, "dense": run})."""
    from keras_sentemb.retrieval import SparseIndex
    from keras_sentemb.retrieval.run_fusion import ReciprocalRankFusion

    documents = model.encode_document(test.documents, batch_size=32, progress=True)
    queries = model.encode_query(test.queries, batch_size=32, progress=False)
    common = {
        "active dims a query": round(float(np.diff(queries.indptr).mean()), 1),
        "active dims a document": round(float(np.diff(documents.indptr).mean()), 1),
    }
    exact = SparseIndex(documents)
    run, exact_rate, exact_ids = searched_run(test, exact, queries, "exact", top_k)
    rows = {f"{name} exact": {**measured(run, test), **common, "bytes a document": round(exact.bytes_per_document),
                              "queries/s": round(exact_rate, 1)}}  # fmt: skip
    seismic = SparseIndex(documents, engine="seismic")
    seismic_run, seismic_rate, seismic_ids = searched_run(test, seismic, queries, "seismic", top_k)
    top10 = [len(set(a[:10][a[:10] >= 0]) & set(b[:10][b[:10] >= 0])) / max(1, int((a[:10] >= 0).sum()))
             for a, b in zip(exact_ids, seismic_ids)]  # fmt: skip
    rows[f"{name} Seismic"] = {**measured(seismic_run, test), **common, "queries/s": round(seismic_rate, 1),
                               "Seismic recall@10 vs exact": round(float(np.mean(top10)), 4)}  # fmt: skip
    fusion = ReciprocalRankFusion()
    for other, other_run in other_runs.items():
        rows[f"{name} + {other} (RRF)"] = measured(fusion.fuse([run, other_run], top_k), test)
    rows[f"{name} + BM25 + dense (RRF)"] = measured(fusion.fuse([run, *other_runs.values()], top_k), test)
    return rows


def baseline_runs(test, dense_model, top_k=1000):
    """{"BM25": run, "dense": run} and their rows."""
    from keras_sentemb import SentenceEncoder
    from keras_sentemb.evaluation.beir_retrieval import dense_run
    from keras_sentemb.retrieval.lexical_index import LexicalIndex, lexical_options
    from keras_sentemb.retrieval.ranked_runs import run_of
    from keras_sentemb.retrieval.run_fusion import ReciprocalRankFusion

    lexical = LexicalIndex(test.documents, lexical_options(True))
    ids, scores = lexical.search(test.queries, top_k)
    bm25 = run_of(test.query_ids, test.document_ids, ids, scores)
    encoder = SentenceEncoder.from_pretrained(dense_model)
    documents = encoder.encode_document(test.documents, batch_size=32, normalize=True, progress=True)
    queries = encoder.encode_query(test.queries, batch_size=32, normalize=True, progress=False)
    dense = dense_run(test, queries, documents, top_k)
    rows = {"BM25": measured(bm25, test), f"dense {dense_model}": measured(dense, test)}
    rows["BM25 + dense (RRF)"] = measured(ReciprocalRankFusion().fuse([bm25, dense]), test)
    return {"BM25": bm25, "dense": dense}, rows


def main():
    from train_splade import HEAD_BIAS, training_pairs

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_beir_training_arguments(parser)
    parser.add_argument("--head-bias", type=float, default=HEAD_BIAS, help="both new heads' starting decoder bias")
    parser.add_argument("--output", default=os.path.join("out", "sparse_retrieval"))
    args = parser.parse_args()
    import keras

    from keras_sentemb import SparseEncoder
    from keras_sentemb.data.beir_folder import read_beir_folder
    from keras_sentemb.pretrained.pretrained_weights import resolve_pretrained_dir

    os.makedirs(args.output, exist_ok=True)
    shared = ["--max-length", str(args.max_length), "--epochs", str(args.epochs), "--batch-size",
              str(args.batch_size), "--learning-rate", str(args.learning_rate), "--seed", str(args.seed),
              "--head-bias", str(args.head_bias)]  # fmt: skip
    ours_folder = os.path.join(args.output, "ours")
    ours_report, _, _ = run_example_streaming(
        "train_splade.py",
        [
            "--beir",
            args.beir,
            "--model",
            args.model,
            "--max-pairs",
            str(args.max_pairs),
            "--output",
            ours_folder,
            "--skip-test",  # measured below, with theirs, by the same code
            *shared,
        ],
        "ours",
    )
    train = read_beir_folder(args.beir, split="train")
    texts, _, _ = training_pairs(train, args.max_pairs, args.seed)
    pairs_path = os.path.join(args.output, "pairs.json")
    with open(pairs_path, "w", encoding="utf-8") as f:
        json.dump(list(zip(texts.sentences1, texts.sentences2)), f)
    theirs_folder = os.path.join(args.output, "theirs")
    command = [args.anchor_python, ANCHOR, "--pairs", pairs_path, "--model", resolve_pretrained_dir(args.model),
               "--output", theirs_folder, *shared]  # fmt: skip
    print("[theirs] $", " ".join(command), flush=True)
    done = subprocess.run(command, stdout=subprocess.PIPE, text=True)
    if done.returncode != 0:
        raise SystemExit(f"the anchor failed (exit {done.returncode}); its errors are above")
    theirs_report = json.loads([line for line in done.stdout.splitlines() if line.startswith("{")][-1])

    test = read_beir_folder(args.beir, split="test")
    other_runs, rows = baseline_runs(test, args.model)
    ours = keras.saving.load_model(os.path.join(ours_folder, "sparse_encoder.keras"))
    theirs = SparseEncoder.from_pretrained(theirs_folder, max_length=args.max_length)
    rows.update(sparse_rows("ours SPLADE", ours, test, other_runs))
    rows.update(sparse_rows("sentence-transformers SPLADE", theirs, test, other_runs))
    report = {
        "machine": machine_description(),
        "cpu_flags": cpu_flags(),
        "pairs": ours_report["pairs"],
        "steps": {"ours": ours_report["steps"], "theirs": theirs_report["steps"]},
        "fit_seconds": {"ours": ours_report["fit_seconds"], "theirs": theirs_report["fit_seconds"]},
        "ours_dev_ndcg_at_10_by_epoch": ours_report["dev_ndcg_at_10_by_epoch"],
        "rows": rows,
    }
    with open(os.path.join(args.output, "report.json"), "w", encoding="utf-8") as f:
        json.dump(report, f, indent=1)
    print(f"{report['machine']}; CPU flags: {report['cpu_flags']}")
    print(f"{report['pairs']} train pairs, batches of {args.batch_size}, {args.epochs} epoch(s), at most "
          f"{args.max_length} tokens; steps ours {ours_report['steps']} / theirs {theirs_report['steps']}; fit seconds "
          f"ours {ours_report['fit_seconds']} / theirs {theirs_report['fit_seconds']}")  # fmt: skip
    columns = ["ndcg@10", "recall@100", "active dims a query", "active dims a document", "bytes a document",
               "queries/s", "Seismic recall@10 vs exact"]  # fmt: skip
    print(f"| {test.split} | " + " | ".join(columns) + " |")
    print("|---" * (len(columns) + 1) + "|")
    for name, row in rows.items():
        print(f"| {name} | " + " | ".join(str(row.get(column, "")) for column in columns) + " |")


if __name__ == "__main__":
    main()
