"""An inference-free SPLADE model's query side exported (issue 99, item 4): file sizes and one-query latency of the
raw-string SavedModel and the LiteRT file (the WordPiece tokenizer inside), beside `encode_query` and
sentence-transformers' `encode_query` of the same folder, one query a call.

    .anchor-venv/bin/python benchmarks/anchors/sparse_folders.py real --inference-free --output out/sparse_speed/inference-free-shape
    python benchmarks/sparse_query_export.py --folder out/sparse_speed/inference-free-shape --anchor-python .anchor-venv/bin/python

The folder is opensearch-neural-sparse-encoding-doc-v3-distill's shape at real size (a Router: 30,522 static query
weights, a BERT-base SPLADE document side) with random weights: a query's cost does not depend on their values. The
queries are NFCorpus's test queries (../shared/data/beir/nfcorpus). Each exported form's vectors are compared with
`encode_query`'s (max |Δ|) before its latency is read; sentence-transformers runs in the anchor venv, in its own
process, after ours. Prints the CPU's flags and a table: bytes, p50 / p95 ms a query, queries/s, × sentence-transformers.
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(REPO, "benchmarks"))
from common import SHARED_DATA, cpu_flags, machine_description  # noqa: E402

ANCHOR = os.path.join(REPO, "benchmarks", "anchors", "sparse_query_anchor.py")


def test_queries(count):
    folder = os.path.join(SHARED_DATA, "beir", "nfcorpus")
    with open(os.path.join(folder, "qrels", "test.tsv"), encoding="utf-8") as f:
        wanted = list(dict.fromkeys(line.split("\t")[0] for line in f.read().splitlines()[1:]))
    texts = {}
    with open(os.path.join(folder, "queries.jsonl"), encoding="utf-8") as f:
        for line in f:
            row = json.loads(line)
            texts[row["_id"]] = row["text"]
    return [texts[q] for q in wanted if q in texts][:count]


def timed_rows(call, queries):
    """(milliseconds a call, dense rows [Q, vocabulary]) of `call([query])` → a dense row, one query a call."""
    call(queries[:1])
    milliseconds, rows = [], []
    for query in queries:
        start = time.perf_counter()
        row = call([query])
        milliseconds.append(1000 * (time.perf_counter() - start))
        rows.append(row)
    return milliseconds, np.stack(rows)


def dense_row(indices, values, width):
    row = np.zeros(width, np.float32)
    kept = indices[0] >= 0
    row[indices[0][kept]] = values[0][kept]
    return row


def main():
    import tensorflow as tf
    import tensorflow_text  # noqa: F401  (the SavedModel's tokenizer ops)
    from ai_edge_litert import interpreter as litert

    from keras_sentemb import SparseEncoder
    from keras_sentemb.export import export_static_query_encoder, export_static_query_litert
    from keras_sentemb.runtime.litert_runtime import tf_text_kernel_registrars

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--folder", required=True)
    parser.add_argument("--anchor-python", required=True)
    parser.add_argument("--queries", type=int, default=323)
    parser.add_argument("--output", default=os.path.join("out", "sparse_query_export"))
    args = parser.parse_args()
    os.makedirs(args.output, exist_ok=True)
    queries = test_queries(args.queries)
    model = SparseEncoder.from_pretrained(args.folder)
    width = model.embedding_dim
    saved = export_static_query_encoder(model, os.path.join(args.output, "savedmodel"), overwrite=True)
    tflite = export_static_query_litert(model, os.path.join(args.output, "queries.tflite"), overwrite=True)
    serve = tf.saved_model.load(saved).signatures["serving_default"]
    runner = litert.InterpreterWithCustomOps(
        model_path=str(tflite), custom_op_registerers=tf_text_kernel_registrars(), num_threads=2
    ).get_signature_runner("serving_default")

    def saved_model_row(texts):
        out = serve(texts=tf.constant(texts))
        return dense_row(out["indices"].numpy(), out["values"].numpy(), width)

    def litert_row(texts):
        out = runner(texts=np.array([t.encode("utf-8") for t in texts], dtype=object))
        return dense_row(out["indices"], out["values"], width)

    sizes = {
        "SavedModel": sum(
            os.path.getsize(os.path.join(root, name)) for root, _, names in os.walk(saved) for name in names
        ),
        "LiteRT": os.path.getsize(tflite),
    }
    reference = model.encode_query(queries).toarray()
    ours = {
        "encode_query (Python API)": timed_rows(lambda texts: model.encode_query(texts).toarray()[0], queries),
        "SavedModel (raw strings)": timed_rows(saved_model_row, queries),
        "LiteRT (tokenizer inside)": timed_rows(litert_row, queries),
    }
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False, encoding="utf-8") as f:
        json.dump(queries, f)
    anchor_rows = os.path.join(args.output, "sentence_transformers.npy")
    done = subprocess.run(
        [args.anchor_python, ANCHOR, "--folder", args.folder, "--queries", f.name, "--output", anchor_rows],
        capture_output=True,
        text=True,
    )
    os.remove(f.name)
    lines = [line for line in done.stdout.splitlines() if line.startswith("{")]
    theirs = None
    if done.returncode == 0 and lines:
        theirs = (json.loads(lines[-1])["milliseconds"], np.load(anchor_rows))
    print(f"{machine_description()}; CPU flags: {cpu_flags()}")
    print(f"{len(queries)} NFCorpus test queries, one a call; vocabulary {width}")
    print(
        "| query encoder | bytes | p50 ms | p95 ms | queries/s | × sentence-transformers | max abs Δ vs encode_query |"
    )
    print("|---|---|---|---|---|---|---|")
    their_rate = 1000 * len(theirs[0]) / sum(theirs[0]) if theirs else None
    rows = list(ours.items()) + ([("sentence-transformers encode_query (torch)", theirs)] if theirs else [])
    for name, (milliseconds, vectors) in rows:
        rate = 1000 * len(milliseconds) / sum(milliseconds)
        size = next((f"{bytes_:,}" for key, bytes_ in sizes.items() if name.startswith(key)), "")
        ratio = f"{rate / their_rate:.1f}" if their_rate else "–"
        p95 = float(np.percentile(milliseconds, 95))
        delta = float(np.abs(vectors - reference).max())
        print(
            f"| {name} | {size} | {statistics.median(milliseconds):.2f} | {p95:.2f} | {rate:.0f} | {ratio} | {delta:.1e} |"
        )
    if theirs is None:
        print("sentence-transformers: not measured:", (done.stderr.strip().splitlines() or ["no output"])[-1][:200])


if __name__ == "__main__":
    main()
