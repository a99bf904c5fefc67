"""Document encoding of a sparse encoder (SPLADE) against sentence-transformers' SparseEncoder, one interleaved run.

    .anchor-venv/bin/python benchmarks/anchors/sparse_folders.py real --output out/sparse_speed/splade-v3-shape
    python benchmarks/sparse_speed.py --folder out/sparse_speed/splade-v3-shape --anchor-python .anchor-venv/bin/python

The folder is splade-v3's shape at real size with random weights (BERT-base masked LM, the 30,522-entry WordPiece of
bert-base-uncased): speed does not depend on the weights' values. The documents are NFCorpus's (title + text, the
first `--documents` of ../shared/data/beir/nfcorpus/corpus.jsonl), cut at `--max-length` tokens, batches of
`--batch-size`. Each side runs in a process of its own (its peak RSS its own), in the order ours TensorFlow,
theirs torch, ours raw-string SavedModel (the document side's export, requests of `--batch-size` documents, then all
of them as one request), ours OpenVINO float32, theirs ONNX Runtime, theirs OpenVINO, then ours at the reduced
precisions this CPU runs (bfloat16 where it has BF16 arithmetic; int8 where it has int8 dot products). Each side's vectors of the
first documents are compared with ours (max |Δ| relative to the largest weight) before any speed is read. Prints a
table: documents/s, active dimensions a document, peak RSS, and the ratio to sentence-transformers' fastest backend,
with the CPU's flags.
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(REPO, "benchmarks"))
from common import SHARED_DATA, cpu_flags, machine_description  # noqa: E402

ANCHOR = os.path.join(REPO, "benchmarks", "anchors", "sparse_speed_anchor.py")
COMPARED = 16


def ours(folder, workload_path, backend, precision, output):
    """Ours in this interpreter, in a process of its own: one JSON line (as the anchor's)."""
    code = f"""
import json, resource, time, numpy as np
from keras_sentemb import SparseEncoder
work = json.load(open({workload_path!r}, encoding="utf-8"))
model = SparseEncoder.from_pretrained({folder!r}, max_length=work["max_length"])
documents, batch = work["documents"], work["batch_size"]
options = dict(backend={backend!r}, precision={precision!r})
if {precision!r} == "int8":
    options["calibration_texts"] = documents[-64:]
model.encode_document(documents[: 2 * batch], batch_size=batch, **options)
start = time.perf_counter()
vectors = model.encode_document(documents, batch_size=batch, **options)
seconds = time.perf_counter() - start
np.save({os.path.join(output, f"ours-{backend}-{precision}.npy")!r}, vectors[: work["compared"]].toarray())
print(json.dumps({{"documents_per_s": len(documents) / seconds,
                  "active_per_document": float(np.diff(vectors.indptr).mean()),
                  "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}}))
"""
    return _json_of([sys.executable, "-c", code])


def ours_saved_model(folder, workload_path, output):
    """The document side's raw-string SavedModel (`export_sparse_encoder`: chunks of the request, unpadded), exported
    in one process and served in another (its peak RSS the server's alone): requests of `batch_size` documents, then
    the whole workload as one request (the peak RSS after each: a bounded graph holds about the same for both)."""
    saved = os.path.join(output, "savedmodel")
    export = f"""
from keras_sentemb import SparseEncoder
from keras_sentemb.export import export_sparse_encoder
import json
work = json.load(open({workload_path!r}, encoding="utf-8"))
model = SparseEncoder.from_pretrained({folder!r}, max_length=work["max_length"])
export_sparse_encoder(model, {saved!r}, overwrite=True)
print("{{}}")
"""
    exported = _json_of([sys.executable, "-c", export])
    if "unavailable" in exported:
        return exported
    serve = f"""
import json, resource, time, numpy as np, tensorflow as tf, tensorflow_text
work = json.load(open({workload_path!r}, encoding="utf-8"))
documents, batch = work["documents"], work["batch_size"]
serve = tf.saved_model.load({os.path.join(saved, "1")!r}).signatures["serving_default"]
def rows(texts):
    out = serve(texts=tf.constant(texts, tf.string))
    return out["indices"].numpy(), out["values"].numpy()
rows(documents[:batch])
start = time.perf_counter()
served = [rows(documents[i : i + batch]) for i in range(0, len(documents), batch)]
seconds = time.perf_counter() - start
batched_peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
indices, values = rows(documents)
dense = np.zeros((work["compared"], 30522), np.float32)
for row in range(work["compared"]):
    kept = indices[row] >= 0
    dense[row, indices[row][kept]] = values[row][kept]
np.save({os.path.join(output, "ours-savedmodel.npy")!r}, dense)
active = sum(int((i >= 0).sum()) for part, _ in served for i in part) / len(documents)
print(json.dumps({{"documents_per_s": len(documents) / seconds, "active_per_document": active,
                  "peak_rss_mb": batched_peak,
                  "one_request_peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}}))
"""
    return _json_of([sys.executable, "-c", serve])


def theirs(anchor_python, folder, workload_path, backend, output):
    return _json_of(
        [
            anchor_python,
            ANCHOR,
            "--folder",
            folder,
            "--backend",
            backend,
            "--workload",
            workload_path,
            "--output",
            output,
        ]
    )


def _json_of(command):
    done = subprocess.run(command, capture_output=True, text=True, env={**os.environ, "TF_CPP_MIN_LOG_LEVEL": "3"})
    lines = [line for line in done.stdout.splitlines() if line.startswith("{")]
    if done.returncode != 0 or not lines:
        return {"unavailable": (done.stderr.strip().splitlines() or ["no output"])[-1][:200]}
    return json.loads(lines[-1])


def documents(count):
    path = os.path.join(SHARED_DATA, "beir", "nfcorpus", "corpus.jsonl")
    texts = []
    with open(path, encoding="utf-8") as f:
        for line in f:
            row = json.loads(line)
            texts.append((row.get("title", "") + " " + row.get("text", "")).strip())
            if len(texts) == count:
                break
    return texts


def main():
    import numpy as np

    from keras_sentemb.runtime import openvino_cpu_capabilities
    from keras_sentemb.runtime.openvino_runtime import cpu_has_int8_dot_products

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--folder", required=True)
    parser.add_argument("--anchor-python", required=True)
    parser.add_argument("--documents", type=int, default=256)
    parser.add_argument("--max-length", type=int, default=256)
    parser.add_argument("--batch-size", type=int, default=32)
    parser.add_argument("--output", default=os.path.join("out", "sparse_speed", "run"))
    parser.add_argument(
        "--only", nargs="+", help="run only these rows (stems: torch, ours-savedmodel, ours-openvino-float32, onnx, …)"
    )
    args = parser.parse_args()
    os.makedirs(args.output, exist_ok=True)
    work = {"documents": documents(args.documents), "max_length": args.max_length, "batch_size": args.batch_size,
            "compared": COMPARED}  # fmt: skip
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False, encoding="utf-8") as f:
        json.dump(work, f)
        workload = f.name
    folder = os.path.abspath(args.folder)
    runs = [
        ("ours", "TensorFlow float32", lambda: ours(folder, workload, "tensorflow", "float32", args.output), "ours-tensorflow-float32"),
        ("theirs", "torch float32", lambda: theirs(args.anchor_python, folder, workload, "torch", args.output), "torch"),
        ("ours", "SavedModel (raw strings, unpadded)", lambda: ours_saved_model(folder, workload, args.output), "ours-savedmodel"),
        ("ours", "OpenVINO float32", lambda: ours(folder, workload, "openvino", "float32", args.output), "ours-openvino-float32"),
        ("theirs", "ONNX Runtime float32", lambda: theirs(args.anchor_python, folder, workload, "onnx", args.output), "onnx"),
        ("theirs", "OpenVINO (its default precision)", lambda: theirs(args.anchor_python, folder, workload, "openvino", args.output), "openvino"),
    ]  # fmt: skip
    if "BF16" in openvino_cpu_capabilities()[0]:
        runs.append(("ours", "OpenVINO bfloat16", lambda: ours(folder, workload, "openvino", "bfloat16", args.output), "ours-openvino-bfloat16"))  # fmt: skip
    if cpu_has_int8_dot_products():
        runs.append(("ours", "OpenVINO int8", lambda: ours(folder, workload, "openvino", "int8", args.output), "ours-openvino-int8"))  # fmt: skip
    # --only: the rows whose stem is named (the TensorFlow row always runs: the others are compared with it)
    chosen = [run for run in runs if not args.only or run[3] in args.only or run[3] == "ours-tensorflow-float32"]
    rows = [(side, name, measure(), stem) for side, name, measure, stem in chosen]
    os.remove(workload)
    reference = np.load(os.path.join(args.output, "ours-tensorflow-float32.npy"))
    fastest = max(
        (r["documents_per_s"] for side, _, r, _ in rows if side == "theirs" and "documents_per_s" in r), default=None
    )
    print(f"{machine_description()}; CPU flags: {cpu_flags()}")
    print(
        f"{len(work['documents'])} NFCorpus documents, at most {args.max_length} tokens, batches of {args.batch_size}"
    )
    print(
        "| side | runtime | documents/s | × their fastest | active dims a document | peak RSS MiB | max abs Δ / max weight |"
    )
    print("|---|---|---|---|---|---|---|")
    for side, name, result, stem in rows:
        if "documents_per_s" not in result:
            print(f"| {side} | {name} | not measured: {result.get('unavailable')} | | | | |")
            continue
        vectors = np.load(os.path.join(args.output, f"{stem}.npy"))
        delta = float(np.abs(vectors - reference).max() / np.abs(reference).max())
        ratio = f"{result['documents_per_s'] / fastest:.2f}" if fastest else "–"
        computed = f" (computes in {result['compute_precision']})" if "compute_precision" in result else ""
        print(
            f"| {side} | {name}{computed} | {result['documents_per_s']:.1f} | {ratio} | "
            f"{result['active_per_document']:.0f} | {result['peak_rss_mb']:.0f} | {delta:.1e} |"
        )
        if "one_request_peak_rss_mb" in result:
            print(f"| {side} | {name}: all {len(work['documents'])} documents as one request | | | | "
                  f"{result['one_request_peak_rss_mb']:.0f} | |")  # fmt: skip


if __name__ == "__main__":
    main()
