"""Document encoding of a ColBERT model against PyLate's, one run (issue 100, item 8).

    .pylate-venv/bin/python benchmarks/anchors/pylate_speed_anchor.py folder --output out/late_interaction_speed/modernbert-base
    python benchmarks/late_interaction_speed.py --folder out/late_interaction_speed/modernbert-base \\
        --anchor-python .pylate-venv/bin/python

The folder is ModernBERT-base's shape at real size with random weights, made a PyLate ColBERT (768 → 128, documents
cut at 256 tokens) and saved by PyLate: speed does not depend on the weights' values. The documents are NFCorpus's
(title + text, the first `--documents` of ../shared/data/beir/nfcorpus/corpus.jsonl), batches of `--batch-size`. Each
side runs in a process of its own (its peak RSS its own), in the order ours TensorFlow, PyLate (torch float32), ours
OpenVINO float32, ours raw-string SavedModel (the document side's export: unpadded), then ours OpenVINO bfloat16 where
this CPU has BF16 arithmetic. Each side's token vectors of the first documents are compared with ours on TensorFlow
(max |Δ|) before any speed is read. Prints a table — documents/s, token vectors/s, × PyLate, peak RSS — with the CPU's
flags.
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(REPO, "benchmarks"))
from common import cpu_flags, machine_description  # noqa: E402
from sparse_speed import documents  # noqa: E402

ANCHOR = os.path.join(REPO, "benchmarks", "anchors", "pylate_speed_anchor.py")
COMPARED = 8


def ours(folder, workload_path, backend, precision, output):
    """Ours in this interpreter, in a process of its own: one JSON line (as the anchor's)."""
    code = f"""
import json, resource, time, numpy as np
from keras_sentemb import MultiVectorEncoder
work = json.load(open({workload_path!r}, encoding="utf-8"))
model = MultiVectorEncoder.from_pretrained({folder!r})
documents, batch = work["documents"], work["batch_size"]
options = dict(backend={backend!r}, precision={precision!r})
model.encode_document(documents[: 2 * batch], batch_size=batch, **options)
start = time.perf_counter()
vectors = model.encode_document(documents, batch_size=batch, **options)
seconds = time.perf_counter() - start
np.save({os.path.join(output, f"ours-{backend}-{precision}.npy")!r}, np.concatenate(vectors[: work["compared"]]))
print(json.dumps({{"documents_per_s": len(documents) / seconds, "vectors_per_s": sum(map(len, vectors)) / seconds,
                  "vectors_per_document": float(np.mean([len(v) for v in vectors])),
                  "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}}))
"""
    return _json_of([sys.executable, "-c", code])


def ours_saved_model(folder, workload_path, output):
    """The document side's raw-string SavedModel (unpadded), exported in one process and served in another."""
    saved = os.path.join(output, "savedmodel")
    export = f"""
from keras_sentemb import MultiVectorEncoder
from keras_sentemb.export import export_multi_vector_encoder
export_multi_vector_encoder(MultiVectorEncoder.from_pretrained({folder!r}), {saved!r}, overwrite=True)
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
    return [v[:n] for v, n in zip(out["vectors"].numpy(), out["token_counts"].numpy())]
rows(documents[:batch])
start = time.perf_counter()
vectors = [row for i in range(0, len(documents), batch) for row in rows(documents[i : i + batch])]
seconds = time.perf_counter() - start
np.save({os.path.join(output, "ours-savedmodel.npy")!r}, np.concatenate(vectors[: work["compared"]]))
print(json.dumps({{"documents_per_s": len(documents) / seconds, "vectors_per_s": sum(map(len, vectors)) / seconds,
                  "vectors_per_document": float(np.mean([len(v) for v in vectors])),
                  "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}}))
"""
    return _json_of([sys.executable, "-c", serve])


def pylate(anchor_python, folder, workload_path, output):
    return _json_of(
        [anchor_python, ANCHOR, "encode", "--folder", folder, "--workload", workload_path, "--output", output]
    )


def _json_of(command):
    done = subprocess.run(command, capture_output=True, text=True, env={**os.environ, "TF_CPP_MIN_LOG_LEVEL": "3"})
    lines = [line for line in done.stdout.splitlines() if line.startswith("{")]
    if done.returncode != 0 or not lines:
        return {"unavailable": (done.stderr.strip().splitlines() or ["no output"])[-1][:200]}
    return json.loads(lines[-1])


def main():
    import numpy as np

    from keras_sentemb.runtime import openvino_cpu_capabilities

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--folder", required=True)
    parser.add_argument("--anchor-python", required=True)
    parser.add_argument("--documents", type=int, default=128)
    parser.add_argument("--batch-size", type=int, default=32)
    parser.add_argument("--output", default=os.path.join("out", "late_interaction_speed", "run"))
    args = parser.parse_args()
    os.makedirs(args.output, exist_ok=True)
    work = {"documents": documents(args.documents), "batch_size": args.batch_size, "compared": COMPARED}
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False, encoding="utf-8") as f:
        json.dump(work, f)
        workload = f.name
    folder = os.path.abspath(args.folder)
    runs = [
        ("ours", "TensorFlow float32", lambda: ours(folder, workload, "tensorflow", "float32", args.output), "ours-tensorflow-float32"),
        ("PyLate", "torch float32", lambda: pylate(args.anchor_python, folder, workload, args.output), "pylate"),
        ("ours", "OpenVINO float32", lambda: ours(folder, workload, "openvino", "float32", args.output), "ours-openvino-float32"),
        ("ours", "SavedModel (raw strings, unpadded)", lambda: ours_saved_model(folder, workload, args.output), "ours-savedmodel"),
    ]  # fmt: skip
    if "BF16" in openvino_cpu_capabilities()[0]:
        runs.append(("ours", "OpenVINO bfloat16", lambda: ours(folder, workload, "openvino", "bfloat16", args.output), "ours-openvino-bfloat16"))  # fmt: skip
    rows = [(side, name, measure(), stem) for side, name, measure, stem in runs]
    os.remove(workload)
    reference = np.load(os.path.join(args.output, "ours-tensorflow-float32.npy"))
    anchor = next((r for side, _, r, _ in rows if side == "PyLate" and "vectors_per_s" in r), None)
    report = {"machine": machine_description(), "cpu_flags": cpu_flags(), "documents": len(work["documents"]),
              "rows": {f"{side} {name}": result for side, name, result, _ in rows}}  # fmt: skip
    with open(os.path.join(args.output, "report.json"), "w", encoding="utf-8") as f:
        json.dump(report, f, indent=1)
    print(f"{report['machine']}; CPU flags: {report['cpu_flags']}")
    print(f"{len(work['documents'])} NFCorpus documents, batches of {args.batch_size}, {os.path.basename(folder)}")
    print(
        "| side | runtime | documents/s | token vectors/s | × PyLate | vectors a document | peak RSS MiB | max abs Δ |"
    )
    print("|---|---|---|---|---|---|---|---|")
    for side, name, result, stem in rows:
        if "vectors_per_s" not in result:
            print(f"| {side} | {name} | not measured: {result.get('unavailable')} | | | | | |")
            continue
        vectors = np.load(os.path.join(args.output, f"{stem}.npy"))
        delta = (
            f"{np.abs(vectors - reference).max():.1e}" if vectors.shape == reference.shape else f"shape {vectors.shape}"
        )
        ratio = f"{result['vectors_per_s'] / anchor['vectors_per_s']:.2f}" if anchor else "–"
        print(
            f"| {side} | {name} | {result['documents_per_s']:.1f} | {result['vectors_per_s']:.0f} | {ratio} | "
            f"{result['vectors_per_document']:.1f} | {result['peak_rss_mb']:.0f} | {delta} |"
        )


if __name__ == "__main__":
    main()
