"""How close `encode(precision="int8")` stays to float32, where int8's static activation scales
cannot hold: long texts and runs of one repeated word (issue 37). all-MiniLM-L6-v2, calibrated on
the first 256 distinct STS-B dev sentences (as a user would: sentences like theirs).

Printed side by side, in one run: `encode(precision="int8")` as it runs on this CPU (float32 for
every batch on a CPU without int8 dot products: no AVX-512 VNNI, AVX-VNNI or AMX), the int8 runtime
with only the length and repeated-word fallback (batches padded past 128 tokens or holding a
repeated-word run at float32: what a VNNI or AMX CPU runs), and the anchor, int8 everywhere (the
runtime without any fallback, as before), on
- short: the distinct STS-B test sentences;
- medium natural: consecutive test sentences joined to 84-128 word pieces (int8 in both);
- long natural: consecutive test sentences joined to 200-256 word pieces;
- repeated words: one word 40-500 times, alone or as a pair;
then how many calibrations 8 threads making the first int8 call on a fresh encoder run, and how
far a text's int8 (and, on a CPU with bf16 arithmetic, bfloat16) vector moves between batch 1 and a
batch of 64 (padding), and what one text costs at each precision (`encode([text])`, p50 over 200
sentences, interleaved: float32 runs single texts on static [1, L] models, bfloat16 and int8 on the
dynamic model at the text's own length, which keeps their vectors batch-independent).

    python benchmarks/int8_quality.py [--data ../shared/data]
"""

import argparse
import csv
import os
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import numpy as np  # noqa: E402
from common import SHARED_DATA, cpu_flags, machine_description  # noqa: E402

import keras_sentemb  # noqa: E402
from keras_sentemb.models import embedding_model  # noqa: E402
from keras_sentemb.runtime.openvino_runtime import STATIC_LENGTHS, Int8WithFloat32Fallback  # noqa: E402

REPEATED = ["word " * 300, "the " * 250, "cat " * 120, "hello world " * 100, "storm " * 100, "dog " * 60, "yes " * 40]


def sentences(path, columns=("sentence1", "sentence2")):
    with open(path, encoding="utf-8", newline="") as f:
        rows = list(csv.DictReader(f, delimiter="\t", quoting=csv.QUOTE_NONE))
    return list(dict.fromkeys(row[c] for c in columns for row in rows))


def joined(texts, encoder, low, high, count):
    """Consecutive `texts` joined until a text has `low`..`high` word pieces; `count` of them."""
    out, current = [], []
    for text in texts:
        current.append(text)
        pieces = len(encoder.tokenize_to_rows([" ".join(current).encode()])[0]) + 2
        if pieces >= low:
            if pieces <= high:
                out.append(" ".join(current))
            current = []
        if len(out) == count:
            break
    return out


def cosines(encoder, texts, calibration, reference, batch_size=32):
    vectors = encoder.encode(
        texts, precision="int8", calibration_texts=calibration, batch_size=batch_size, progress=False
    )
    return (vectors * reference).sum(axis=1)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", default=SHARED_DATA, help="the benchmark data folder (docs/data.md)")
    args = parser.parse_args()
    print(f"machine: {machine_description()}; CPU flags: {cpu_flags()}")
    calibration = sentences(os.path.join(args.data, "stsb", "dev.tsv"))[:256]
    test = sentences(os.path.join(args.data, "stsb", "test.tsv"))
    encoder = keras_sentemb.SentenceEncoder.from_pretrained("minilm-l6")
    groups = {
        "short (STS-B test sentences)": test,
        "medium natural (84-128 pieces)": joined(test, encoder, 84, 128, 60),
        "long natural (200-256 pieces)": joined(test, encoder, 200, 256, 40),
        "repeated words (40-500 times)": REPEATED,
    }
    runtime = encoder.inference_runtime("openvino", "int8", calibration_texts=calibration)
    length_only = keras_sentemb.SentenceEncoder.from_pretrained("minilm-l6")
    length_only._runtimes[("openvino", "int8")] = Int8WithFloat32Fallback(runtime.int8, lambda: runtime._fallback())
    anchor = keras_sentemb.SentenceEncoder.from_pretrained("minilm-l6")
    anchor._runtimes[("openvino", "int8")] = runtime.int8  # int8 everywhere: the runtime without any fallback
    print(f"encode's int8 runtime here: {runtime!r}")
    print(
        f"{'texts':<32} {'n':>5}  {'min / mean cosine to float32: encode here':>41}  {'length fallback':>16}  {'int8 everywhere':>16}"
    )
    for name, texts in groups.items():
        reference = encoder.encode(texts, progress=False)
        # one text per batch for the repeated words: a batch of them must not ride on a long neighbour
        size = 1 if name.startswith("repeated") else 32
        columns = [cosines(model, texts, calibration, reference, size) for model in (encoder, length_only, anchor)]
        print(
            f"{name:<32} {len(texts):>5}  "
            + "  ".join(f"{c.min():>.4f} / {c.mean():.4f}".rjust(16 if i else 41) for i, c in enumerate(columns))
        )

    built, real = [], embedding_model.OpenVINORuntime

    def counting(*a, **k):
        built.append(a[1])
        return real(*a, **k)

    embedding_model.OpenVINORuntime = counting
    fresh = keras_sentemb.SentenceEncoder.from_pretrained("minilm-l6")
    start = time.perf_counter()
    threads = [
        threading.Thread(
            target=fresh.encode, args=(test[:32],), kwargs={"precision": "int8", "calibration_texts": calibration}
        )
        for _ in range(8)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    embedding_model.OpenVINORuntime = real
    print(
        f"8 threads, first int8 call on a fresh encoder: {built.count('int8')} calibration(s), "
        f"{time.perf_counter() - start:.1f} s"
    )
    for label, model in (("encode here", encoder), ("int8 everywhere", anchor)):
        one = np.stack([model.encode([t], precision="int8", progress=False)[0] for t in test[:64]])
        batch = model.encode(test[:64], precision="int8", batch_size=64, progress=False)
        print(f"int8 ({label}): max |Δ| batch 1 vs batch 64 on 64 sentences {np.abs(one - batch).max():.2e}")
    try:  # bfloat16 runs only where the CPU has bf16 arithmetic (AVX-512 BF16 or AMX)
        one = np.stack([encoder.encode([t], precision="bfloat16", progress=False)[0] for t in test[:64]])
        batch = encoder.encode(test[:64], precision="bfloat16", batch_size=64, progress=False)
        print(f"bfloat16: max |Δ| batch 1 vs batch 64 on 64 sentences {np.abs(one - batch).max():.2e}")
    except (ValueError, RuntimeError) as refused:
        print(f"bfloat16: not run on this CPU ({refused})")
    single_text_latency(encoder, test[:200])


def single_text_latency(encoder, texts):
    """p50 ms of `encode([text])` at each precision this CPU runs, interleaved text by text; beside
    them bfloat16 the way it ran before (single texts on static [1, L] models, the vector then
    depending on the batch): a second encoder whose bfloat16 runtime is given the static shapes."""
    runs = {"float32": (encoder, "float32"), "int8": (encoder, "int8")}
    try:
        encoder.encode(texts[:1], precision="bfloat16", progress=False)
        static = keras_sentemb.SentenceEncoder.from_pretrained("minilm-l6")
        runtime = static.inference_runtime("openvino", "bfloat16")
        runtime.static_lengths = STATIC_LENGTHS
        runtime.padding_buckets = lambda ladder: ()  # the float32 plan: batches padded to their longest
        runs["bfloat16"] = (encoder, "bfloat16")
        runs["bfloat16 on static [1, L] shapes (before)"] = (static, "bfloat16")
    except ValueError:
        pass
    times = {label: [] for label in runs}
    for text in texts:
        for label, (model, precision) in runs.items():
            start = time.perf_counter()
            model.encode([text], backend="openvino", precision=precision, progress=False)
            times[label].append(time.perf_counter() - start)
    print(
        "one text, encode([text]) p50 over 200 STS-B test sentences: "
        + ", ".join(f"{label} {1000 * np.median(t):.2f} ms" for label, t in times.items())
    )


if __name__ == "__main__":
    main()
