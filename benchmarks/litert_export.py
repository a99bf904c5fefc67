"""On device: each model as a LiteRT file (`export_litert`) at each precision, run by the LiteRT interpreter
(`ai-edge-litert`, TF Text's kernels registered) as an app runs it, against the model's own `encode`
float32 in the same run.

Per row: the `.tflite` file size; batch-1 p50 over 200 STS-B test sentences (`LiteRTEncoder.encode([text])`,
interleaved with the anchor `encode([text])` float32, same sentences, same process) and their ratio; STS-B
test Spearman ×100 of the LiteRT vectors next to `encode`'s; the largest |Δ| of a vector component to
`encode` float32 and the cosines to it over the distinct STS-B test sentences (mean, the share at least 0.99,
the lowest).

    python benchmarks/litert_export.py [--models minilm-l6 mpnet-base zoo:static-minilm-l6] [--data ../shared/data]
"""

import argparse
import functools
import json
import os
import statistics
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import numpy as np  # noqa: E402
from common import SHARED_DATA, cpu_flags, machine_description  # noqa: E402

from keras_sentemb.data.examples import read_scored_pairs  # noqa: E402
from keras_sentemb.evaluation.sts import correlations  # noqa: E402
from keras_sentemb.export.litert_export import export_litert  # noqa: E402
from keras_sentemb.runtime.litert_runtime import LiteRTEncoder  # noqa: E402
from keras_sentemb.zoo.loading import load_any_encoder  # noqa: E402

# (label, export_litert precision, full-integer calibration?)
MODES = [("float32", "float32", False), ("float16", "float16", False), ("int8", "int8", False)]
FULL_INTEGER = ("int8 full-integer", "int8", True)
THREADS = 2


def spearman(encode, pairs):
    sentences = list(dict.fromkeys(pairs.sentences1 + pairs.sentences2))
    vectors = dict(zip(sentences, batched(encode, sentences), strict=True))
    scores = [float(np.dot(vectors[a], vectors[b])) for a, b in zip(pairs.sentences1, pairs.sentences2, strict=True)]
    return correlations(scores, pairs.scores)[0]


def batched(encode, texts, size=32):
    return [row for start in range(0, len(texts), size) for row in encode(texts[start : start + size])]


def p50_pair(first, second, texts):
    """Batch-1 p50 (ms) of two callables, interleaved text by text."""
    times = ([], [])
    for text in texts:
        for index, call in enumerate((first, second)):
            start = time.perf_counter()
            call([text])
            times[index].append(1000 * (time.perf_counter() - start))
    return statistics.median(times[0]), statistics.median(times[1])


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", nargs="+", default=["minilm-l6", "mpnet-base", "zoo:static-minilm-l6"])
    parser.add_argument("--data", default=SHARED_DATA)
    parser.add_argument("--latency-sentences", type=int, default=200)
    parser.add_argument("--json", help="also write the rows here")
    args = parser.parse_args()
    print(machine_description())
    print("CPU flags:", cpu_flags())
    test = read_scored_pairs(os.path.join(args.data, "stsb", "test.tsv"))
    dev = read_scored_pairs(os.path.join(args.data, "stsb", "dev.tsv"))
    calibration = list(dict.fromkeys(dev.sentences1))[:256]
    sentences = list(dict.fromkeys(test.sentences1 + test.sentences2))
    latency_texts = sentences[: args.latency_sentences]
    rows = []
    for name in args.models:
        encoder = load_any_encoder(name)
        encode = functools.partial(encoder.encode, batch_size=32)
        reference = np.stack(batched(encode, sentences))
        reference_stsb = spearman(encode, test)
        static = type(encoder).__name__ == "StaticEncoder"
        for label, precision, full_integer in MODES + ([] if static else [FULL_INTEGER]):
            with tempfile.TemporaryDirectory() as folder:
                path = os.path.join(folder, "model.tflite")
                started = time.perf_counter()
                export_litert(
                    encoder, path, precision=precision, calibration_texts=calibration if full_integer else None
                )
                export_seconds = time.perf_counter() - started
                litert = LiteRTEncoder(path, threads=THREADS)
                vectors = np.stack(batched(litert.encode, sentences))
                cosines = np.sum(vectors * reference, axis=1)
                litert_p50, encode_p50 = p50_pair(litert.encode, encoder.encode, latency_texts)
                row = {
                    "model": name,
                    "precision": label,
                    "size_bytes": os.path.getsize(path),
                    "export_seconds": round(export_seconds, 1),
                    "batch1_p50_ms": round(litert_p50, 3),
                    "encode_float32_batch1_p50_ms": round(encode_p50, 3),
                    "latency_ratio": round(litert_p50 / encode_p50, 3),
                    "stsb_test": round(spearman(litert.encode, test), 2),
                    "encode_stsb_test": round(reference_stsb, 2),
                    "max_abs_diff": float(np.abs(vectors - reference).max()),
                    "mean_cosine": float(np.mean(cosines)),
                    "share_cosine_at_least_0.99": float(np.mean(cosines >= 0.99)),
                    "min_cosine": float(np.min(cosines)),
                }
                rows.append(row)
                print(json.dumps(row), flush=True)
    print()
    print(
        "| model | precision | .tflite size | batch-1 p50 (LiteRT) | encode float32 batch-1 p50 | ratio | STS-B test "
        "(LiteRT / encode) | max abs diff | cosine to encode: mean / ≥ 0.99 / min |"
    )
    print("|---|---|---:|---:|---:|---:|---:|---:|---:|")
    for row in rows:
        print(
            f"| {row['model']} | {row['precision']} | {row['size_bytes'] / 1e6:.2f} MB | {row['batch1_p50_ms']:.2f} ms "
            f"| {row['encode_float32_batch1_p50_ms']:.2f} ms | {row['latency_ratio']:.2f}× | {row['stsb_test']:.2f} / "
            f"{row['encode_stsb_test']:.2f} | {row['max_abs_diff']:.1e} | {row['mean_cosine']:.4f} / "
            f"{100 * row['share_cosine_at_least_0.99']:.1f} % / {row['min_cosine']:.4f} |"
        )
    if args.json:
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump({"machine": machine_description(), "cpu_flags": cpu_flags(), "rows": rows}, f, indent=1)


if __name__ == "__main__":
    main()
