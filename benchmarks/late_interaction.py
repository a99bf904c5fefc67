"""Late interaction (ColBERT) trained and measured on a BEIR collection (issue 100, items 7 and 8): our ColBERT (trained
by examples/train_colbert.py with model.fit) beside sentence-transformers' `MultiVectorEncoderTrainer` on the same
triples, steps, batch, seed and starting projection, then both on the test split with BM25, the dense model they start
from, a trained SPLADE model when given, and their hybrids.

    python benchmarks/late_interaction.py --anchor-python .anchor-venv/bin/python [--beir ../shared/data/beir/nfcorpus]

1. Ours: `examples/train_colbert.py --model minilm-l6` (all-MiniLM-L6-v2 + a new 128-d projection; BM25-mined hard
   negatives; `MaxSimRankingLoss`; dev nDCG@10 after each epoch, the best kept). The triples it trains on are written
   for the anchor, and so is its starting projection (`from_sentence_encoder`, the same seed).
2. Theirs: benchmarks/anchors/colbert_training_anchor.py in the anchor venv, from the same all-MiniLM-L6-v2 folder.
   Its folder is read by `MultiVectorEncoder.from_pretrained`, so both models are measured by the same code below.
3. Test split, every model encoded once: nDCG@10 and recall@100 (trec_eval's formulas) of the exact MaxSim search
   and of the FAISS first stage (`MultiVectorIndex`, engine "faiss", our shipped settings) with its recall@10 against
   the exact top 10, queries/s of each search (query vectors given), token vectors a document and bytes a document;
   BM25 (BEIR's parameters), the dense model (cosine) and `--sparse-model` (a SparseEncoder .keras file: exact dot
   products) on the same queries; hybrids by reciprocal-rank fusion (k 60).

Prints the CPU's flags and one table; writes `<output>/report.json`. `--max-pairs`, `--max-length` and `--epochs`
size the run (every train pair at 256 tokens is hours a side on two CPU cores).
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
from common import SHARED_DATA, cpu_flags, machine_description, run_example_streaming  # noqa: E402
from sparse_retrieval import baseline_runs, measured, searched_run  # noqa: E402

ANCHOR = os.path.join(REPO, "benchmarks", "anchors", "colbert_training_anchor.py")


def multi_vector_rows(name, model, test, other_runs, top_k=1000):
    """The rows of one ColBERT model: exact MaxSim, the FAISS first stage and the hybrids with `other_runs`."""
    from keras_sentemb.retrieval.multi_vector_index import MultiVectorIndex
    from keras_sentemb.retrieval.run_fusion import ReciprocalRankFusion

    length_normalize = model.similarity_fn_name == "meanmaxsim"
    documents = model.encode_document(test.documents, batch_size=32, progress=True)
    queries = model.encode_query(test.queries, batch_size=32, progress=False)
    common = {"vectors a document": round(float(np.mean([len(d) for d in documents])), 1)}
    exact = MultiVectorIndex(documents, length_normalize=length_normalize)
    run, exact_rate, exact_ids = searched_run(test, exact, queries, "exact", top_k)
    rows = {f"{name} exact": {**measured(run, test), **common, "bytes a document": round(exact.bytes_per_document),
                              "queries/s": round(exact_rate, 1)}}  # fmt: skip
    faiss = MultiVectorIndex(documents, engine="faiss", length_normalize=length_normalize)
    faiss_run, faiss_rate, faiss_ids = searched_run(test, faiss, queries, "faiss", top_k)
    top10 = [len(set(a[:10]) & set(b[:10][b[:10] >= 0])) / 10 for a, b in zip(exact_ids, faiss_ids)]
    rows[f"{name} FAISS"] = {**measured(faiss_run, test), **common, "bytes a document": round(faiss.bytes_per_document),
                             "queries/s": round(faiss_rate, 1), "FAISS recall@10 vs exact": round(float(np.mean(top10)), 4)}  # fmt: skip
    fusion = ReciprocalRankFusion()
    for other, other_run in other_runs.items():
        rows[f"{name} + {other} (RRF)"] = measured(fusion.fuse([run, other_run], top_k), test)
    rows[f"{name} + {' + '.join(other_runs)} (RRF)"] = measured(fusion.fuse([run, *other_runs.values()], top_k), test)
    return rows


def sparse_run(path, test, top_k=1000):
    """(run, row) of a trained SparseEncoder (.keras) on the test split, exact dot products."""
    import keras

    from keras_sentemb.retrieval import SparseIndex

    model = keras.saving.load_model(path)
    index = SparseIndex(model.encode_document(test.documents, batch_size=32, progress=True))
    run, _, _ = searched_run(test, index, model.encode_query(test.queries, batch_size=32), "exact", top_k)
    return run, measured(run, test)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--anchor-python", required=True)
    parser.add_argument("--beir", default=os.path.join(SHARED_DATA, "beir", "nfcorpus"))
    parser.add_argument("--model", default="minilm-l6")
    parser.add_argument("--max-pairs", type=int, default=0, help="0: every train pair")
    parser.add_argument("--max-length", type=int, default=256)
    parser.add_argument("--query-length", type=int, default=32)
    parser.add_argument("--dim", type=int, default=128)
    parser.add_argument("--epochs", type=int, default=1)
    parser.add_argument("--batch-size", type=int, default=16)
    parser.add_argument("--learning-rate", type=float, default=2e-5)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--sparse-model", help="a trained SparseEncoder .keras file to measure and fuse beside")
    parser.add_argument("--output", default=os.path.join("out", "late_interaction"))
    args = parser.parse_args()
    import keras

    from keras_sentemb import MultiVectorEncoder, SentenceEncoder
    from keras_sentemb.data.beir_folder import read_beir_folder
    from keras_sentemb.pretrained.pretrained_weights import resolve_pretrained_dir

    os.makedirs(args.output, exist_ok=True)
    shared = ["--max-length", str(args.max_length), "--query-length", str(args.query_length), "--epochs",
              str(args.epochs), "--batch-size", str(args.batch_size), "--learning-rate", str(args.learning_rate),
              "--seed", str(args.seed)]  # fmt: skip
    ours_folder = os.path.join(args.output, "ours")
    triples = os.path.join(args.output, "triples.json")
    ours_report, _, _ = run_example_streaming(
        "train_colbert.py",
        [
            "--beir",
            args.beir,
            "--model",
            args.model,
            "--dim",
            str(args.dim),
            "--max-pairs",
            str(args.max_pairs),
            "--output",
            ours_folder,
            "--triples",
            triples,
            "--skip-test",
            *shared,
        ],  # fmt: skip
        "ours",
    )
    start = MultiVectorEncoder.from_sentence_encoder(
        SentenceEncoder.from_pretrained(args.model, max_length=args.max_length),
        dim=args.dim,
        query_length=args.query_length,
        seed=args.seed,
    )
    projection = os.path.join(args.output, "starting_projection.npy")
    np.save(projection, start.get_layer("token_head").get_layer("projection_0").kernel.numpy())
    theirs_folder = os.path.join(args.output, "theirs")
    command = [args.anchor_python, ANCHOR, "--triples", triples, "--model", resolve_pretrained_dir(args.model),
               "--projection", projection, "--output", theirs_folder, *shared]  # fmt: skip
    print("[theirs] $", " ".join(command), flush=True)
    done = subprocess.run(command, stdout=subprocess.PIPE, text=True)
    if done.returncode != 0:
        raise SystemExit(f"the anchor failed (exit {done.returncode}); its errors are above")
    theirs_report = json.loads([line for line in done.stdout.splitlines() if line.startswith("{")][-1])

    test = read_beir_folder(args.beir, split="test")
    other_runs, rows = baseline_runs(test, args.model)
    if args.sparse_model:
        other_runs["SPLADE"], rows["SPLADE (ours, exact)"] = sparse_run(args.sparse_model, test)
    ours = keras.saving.load_model(os.path.join(ours_folder, "multi_vector_encoder.keras"))
    theirs = MultiVectorEncoder.from_pretrained(theirs_folder, max_length=args.max_length)
    measure_start = time.perf_counter()
    rows.update(multi_vector_rows("ours ColBERT", ours, test, other_runs))
    rows.update(multi_vector_rows("sentence-transformers ColBERT", theirs, test, other_runs))
    report = {
        "machine": machine_description(),
        "cpu_flags": cpu_flags(),
        "pairs": ours_report["pairs"],
        "steps": {"ours": ours_report["steps"], "theirs": theirs_report["steps"]},
        "fit_seconds": {"ours": ours_report["fit_seconds"], "theirs": theirs_report["fit_seconds"]},
        "ours_dev_ndcg_at_10_by_epoch": ours_report["dev_ndcg_at_10_by_epoch"],
        "measure_seconds": round(time.perf_counter() - measure_start, 1),
        "rows": rows,
    }
    with open(os.path.join(args.output, "report.json"), "w", encoding="utf-8") as f:
        json.dump(report, f, indent=1)
    print(f"{report['machine']}; CPU flags: {report['cpu_flags']}")
    print(f"{report['pairs']} train triples, batches of {args.batch_size}, {args.epochs} epoch(s), at most "
          f"{args.max_length} tokens a document; steps ours {ours_report['steps']} / theirs {theirs_report['steps']}; "
          f"fit seconds ours {ours_report['fit_seconds']} / theirs {theirs_report['fit_seconds']}")  # fmt: skip
    columns = ["ndcg@10", "recall@100", "vectors a document", "bytes a document", "queries/s",
               "FAISS recall@10 vs exact"]  # fmt: skip
    print(f"| {test.split} | " + " | ".join(columns) + " |")
    print("|---" * (len(columns) + 1) + "|")
    for name, row in rows.items():
        print(f"| {name} | " + " | ".join(str(row.get(column, "")) for column in columns) + " |")


if __name__ == "__main__":
    main()
