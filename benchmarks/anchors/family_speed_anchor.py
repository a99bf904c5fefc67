"""The anchor of benchmarks/family_speed.py: sentence-transformers on one real-size family folder, one backend,
timed in this process (the caller runs one process per (model, mode) so that each peak memory is its own).

Runs in the anchor interpreter (`make anchor-venv`), offline:

    python family_speed_anchor.py --folder F --mode torch --workload W.json --output O

Modes:
- `torch`: `SentenceTransformer(folder)` on the CPU, float32 (transformers' default attention, SDPA);
- `openvino`: `backend="openvino"` (optimum-intel's export, cached under `<output>/openvino/`) at OpenVINO's
  default CPU precision (bf16 on a CPU with AVX-512 BF16 or AMX, else f32);
- `openvino-f32`: the same export with `INFERENCE_PRECISION_HINT` f32.

`--workload` is the JSON the caller writes: `sentences`, `passages`, `latency`, `long_texts`, `long_pieces`,
`batch_size`. Prints one JSON line (`{"unavailable": why}` where optimum-intel cannot export the architecture): sentences/s and passages/s at the batch size, batch-1 p50 / p99 ms, the
long texts' and their pieces' seconds, the export seconds, and the peak resident memory (ru_maxrss); writes
the sentence vectors to `<output>/<mode>.npy`.
"""

import argparse
import json
import os
import resource
import time

import numpy as np


def load(folder, mode, output):
    from sentence_transformers import SentenceTransformer

    if mode == "torch":
        return SentenceTransformer(folder, device="cpu"), 0.0
    exported = os.path.join(output, "openvino")
    start = time.perf_counter()
    if not os.path.exists(os.path.join(exported, "openvino", "openvino_model.xml")):
        SentenceTransformer(folder, device="cpu", backend="openvino").save(exported)
    seconds = time.perf_counter() - start
    kwargs = {"ov_config": {"INFERENCE_PRECISION_HINT": "f32"}} if mode == "openvino-f32" else {}
    return SentenceTransformer(exported, device="cpu", backend="openvino", model_kwargs=kwargs), seconds


def timed(encode, texts, batch_size):
    start = time.perf_counter()
    vectors = np.asarray(encode(texts, batch_size), np.float32)
    return time.perf_counter() - start, vectors


def time_workload(encode, work):
    """Times `encode(texts, batch_size)` on a workload (see the module docstring), warm-ups first; returns
    (the measures, the sentence vectors). benchmarks/family_speed.py times our rows with it too."""
    batch = work["batch_size"]
    start = time.perf_counter()
    encode(work["sentences"][: 2 * batch], batch)  # warm-up (and any conversion done on the first call)
    first_call_s = time.perf_counter() - start
    encode(work["passages"][:2], 2)
    seconds, vectors = timed(encode, work["sentences"], batch)
    passage_seconds, _ = timed(encode, work["passages"], batch)
    latencies = []
    for sentence in work["latency"]:
        start = time.perf_counter()
        encode([sentence], 1)
        latencies.append(time.perf_counter() - start)
    result = {
        "sent_per_s": len(work["sentences"]) / seconds,
        "passages_per_s": len(work["passages"]) / passage_seconds,
        "p50_ms": 1e3 * float(np.percentile(latencies, 50)),
        "p99_ms": 1e3 * float(np.percentile(latencies, 99)),
        "first_call_s": first_call_s,
    }
    if work.get("long_texts"):
        encode(work["long_texts"][:1], 1)
        result["long_s"], _ = timed(encode, work["long_texts"], work["long_batch_size"])
        result["pieces_s"], _ = timed(encode, work["long_pieces"], batch)
    result["peak_rss_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return result, vectors


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--folder", required=True)
    parser.add_argument("--mode", required=True, choices=["torch", "openvino", "openvino-f32"])
    parser.add_argument("--workload", required=True)
    parser.add_argument("--output", required=True)
    args = parser.parse_args()
    with open(args.workload, encoding="utf-8") as f:
        work = json.load(f)
    os.makedirs(args.output, exist_ok=True)
    try:
        model, export_seconds = load(args.folder, args.mode, args.output)
    except ValueError as error:  # optimum-intel refuses an architecture it has no export configuration for
        print(json.dumps({"unavailable": str(error).split(". ")[0]}))
        return

    def encode(texts, batch_size):
        return model.encode(texts, batch_size=batch_size, normalize_embeddings=True)

    result, vectors = time_workload(encode, work)
    np.save(os.path.join(args.output, f"{args.mode}.npy"), vectors)
    result["export_s"] = export_seconds
    print(json.dumps(result))


if __name__ == "__main__":
    main()
