"""The anchor of benchmarks/sparse_speed.py: sentence-transformers' SparseEncoder on one folder, one backend, timed in
this process (the caller runs one process a backend, so that each peak memory is its own).

Runs in the anchor interpreter (`make anchor-venv`), offline:

    python sparse_speed_anchor.py --folder F --backend torch|onnx|openvino --workload W.json --output O

`onnx` and `openvino` are sentence-transformers' own exports (optimum), made once under `<output>/<backend>/` (the
export's seconds printed). Prints one JSON line: documents/s at the workload's batch size, the active dimensions a
document, the peak resident memory (ru_maxrss), the precision it computed in (OpenVINO's CPU plugin picks bfloat16 by
itself on a CPU with AMX or AVX-512 BF16: optimum sets no hint there); writes the first documents' dense vectors to
`<output>/<backend>.npy`.
"""

import argparse
import json
import os
import resource
import time

import numpy as np


def load(folder, backend, output):
    from sentence_transformers import SparseEncoder

    if backend == "torch":
        return SparseEncoder(folder, device="cpu"), 0.0
    exported = os.path.join(output, backend)
    start = time.perf_counter()
    if not os.path.exists(os.path.join(exported, "modules.json")):
        SparseEncoder(folder, device="cpu", backend=backend).save(exported)
    seconds = time.perf_counter() - start
    return SparseEncoder(exported, device="cpu", backend=backend), seconds


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--folder", required=True)
    parser.add_argument("--backend", required=True, choices=["torch", "onnx", "openvino"])
    parser.add_argument("--workload", required=True)
    parser.add_argument("--output", required=True)
    args = parser.parse_args()
    with open(args.workload, encoding="utf-8") as f:
        work = json.load(f)
    os.makedirs(args.output, exist_ok=True)
    try:
        model, export_seconds = load(args.folder, args.backend, args.output)
    except Exception as error:  # an export optimum cannot make on this machine: said, not hidden
        print(json.dumps({"unavailable": f"{type(error).__name__}: {str(error)[:200]}"}))
        return
    model.max_seq_length = work["max_length"]
    documents, batch = work["documents"], work["batch_size"]
    model.encode_document(documents[: 2 * batch], batch_size=batch)  # warm-up
    start = time.perf_counter()
    vectors = model.encode_document(documents, batch_size=batch, convert_to_tensor=True)
    seconds = time.perf_counter() - start
    dense = vectors.to_dense().float().numpy()
    precision = "float32"  # torch and ONNX Runtime on the CPU; OpenVINO: what its CPU plugin chose (bf16 on AMX)
    if args.backend == "openvino":
        precision = model[0].auto_model.request.get_property("INFERENCE_PRECISION_HINT").to_string()
    np.save(os.path.join(args.output, f"{args.backend}.npy"), dense[: work["compared"]])
    print(
        json.dumps(
            {
                "documents_per_s": len(documents) / seconds,
                "active_per_document": float((dense > 0).sum(axis=1).mean()),
                "export_s": export_seconds,
                "compute_precision": precision,
                "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
            }
        )
    )


if __name__ == "__main__":
    main()
