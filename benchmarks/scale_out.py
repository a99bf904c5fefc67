"""Bulk embedding engines on this machine's cores: Beam (DirectRunner), Spark (local[N]) and
Ray Data (N CPUs) against in-process `encode` at the same precision, on the same corpus.

    python benchmarks/scale_out.py --model minilm-l6 --lines 20000 --batch-size 256

The corpus is STS-B test sentences repeated to `--lines` lines (one file per engine run, ids
`<file>:<line>`); every engine writes Parquet and checks its counts. Each engine's time is its
job call on an engine that is already up (a Spark session, a Ray cluster: what a cluster user
has), so it includes loading the model in every worker, reading, counting, embedding and
writing. Overhead = engine seconds / encode seconds − 1. `spark-int8` runs the Spark job on an
`export_openvino(..., "int8")` folder, against in-process `encode(backend="openvino", precision="int8")`.
Prints a table and one JSON line.
"""

import argparse
import json
import os
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import cpu_flags, default_stsb_test, machine_description  # noqa: E402

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
os.environ.setdefault("PYSPARK_PYTHON", sys.executable)

import keras_sentemb  # noqa: E402
from keras_sentemb.data.examples import read_scored_pairs  # noqa: E402
from keras_sentemb.export import export_openvino, export_saved_model  # noqa: E402


def corpus(sentences, lines, folder):
    path = os.path.join(folder, "corpus.txt")
    repeated = [sentences[i % len(sentences)] for i in range(lines)]
    with open(path, "w", encoding="utf-8") as f:
        f.write("\n".join(repeated) + "\n")
    return path, repeated


def timed(label, fn):
    start = time.perf_counter()
    result = fn()
    seconds = time.perf_counter() - start
    print(f"  {label}: {seconds:.1f} s", flush=True)
    return seconds, result


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--model", default="minilm-l6")
    parser.add_argument("--data", default=default_stsb_test())
    parser.add_argument("--lines", type=int, default=20000)
    parser.add_argument("--batch-size", type=int, default=256)
    parser.add_argument("--engines", default="beam,spark,spark-int8,ray")
    parser.add_argument("--workdir", default=None)
    args = parser.parse_args()
    cores = os.cpu_count()
    print(f"machine: {machine_description()}; CPU flags: {cpu_flags()}", flush=True)
    pairs = read_scored_pairs(args.data)
    sentences = sorted(set(pairs.sentences1) | set(pairs.sentences2))
    work = args.workdir or tempfile.mkdtemp(prefix="scale_out_")
    path, texts = corpus(sentences, args.lines, work)
    encoder = keras_sentemb.load_sentence_encoder(args.model)
    model_dir = export_saved_model(encoder, os.path.join(work, "model"), version=1, overwrite=True)
    print(f"{args.lines} lines ({len(sentences)} distinct STS-B test sentences), {args.model}, batch {args.batch_size}")

    engines = args.engines.split(",")
    rows = []
    if set(engines) - {"spark-int8"}:
        encoder.encode(texts[:512], batch_size=args.batch_size, progress=False)  # compile the shapes
        encode_s, _ = timed("encode float32", lambda: encoder.encode(texts, batch_size=args.batch_size, progress=False))
        rows.append(("in-process encode", "float32", encode_s, encode_s))
    out = lambda name: os.path.join(work, f"out-{name}")  # noqa: E731
    if "beam" in engines:
        from keras_sentemb.beam import run_embed_corpus

        seconds, summary = timed(
            "beam DirectRunner",
            lambda: run_embed_corpus(model_dir, path, out("beam") + "/v", batch_size=args.batch_size, overwrite=True),
        )
        assert summary["vectors_written"] == args.lines
        rows.append(("Beam DirectRunner (RunInference)", "float32", seconds, encode_s))
    if "spark" in engines or "spark-int8" in engines:
        from keras_sentemb.spark import embed_corpus as spark_job
        from keras_sentemb.spark.corpus_job import spark_session

        spark = spark_session(f"local[{cores}]")
        spark.range(4).count()  # the session is up, as on a cluster
        if "spark" in engines:
            seconds, summary = timed(
                f"spark local[{cores}]",
                lambda: spark_job(
                    path, model_dir, out("spark"), spark=spark, batch_size=args.batch_size, overwrite=True
                ),
            )
            assert summary["vectors_written"] == args.lines
            rows.append((f"Spark local[{cores}] (predict_batch_udf)", "float32", seconds, encode_s))
        if "spark-int8" in engines:
            calibration = sentences[:300]
            int8_dir = export_openvino(encoder, os.path.join(work, "int8"), "int8", calibration, overwrite=True)
            encoder.encode(
                texts[:512], batch_size=args.batch_size, progress=False, backend="openvino", precision="int8"
            )
            int8_s, _ = timed(
                "encode openvino int8",
                lambda: encoder.encode(
                    texts, batch_size=args.batch_size, progress=False, backend="openvino", precision="int8"
                ),
            )
            rows.append(("in-process encode (OpenVINO)", "int8", int8_s, int8_s))
            seconds, summary = timed(
                f"spark local[{cores}] openvino int8",
                lambda: spark_job(
                    path, int8_dir, out("spark8"), spark=spark, batch_size=args.batch_size, overwrite=True
                ),
            )
            assert summary["vectors_written"] == args.lines
            rows.append((f"Spark local[{cores}] (OpenVINO export)", "int8", seconds, int8_s))
        spark.stop()
    if "ray" in engines:
        import ray

        from keras_sentemb.ray import embed_corpus as ray_job

        ray.init(num_cpus=cores, include_dashboard=False, log_to_driver=False)
        ray.data.DataContext.get_current().enable_progress_bars = False
        ray.data.range(4).count()
        seconds, summary = timed(
            f"ray {cores} CPUs",
            lambda: ray_job(path, model_dir, out("ray"), batch_size=args.batch_size, overwrite=True),
        )
        assert summary["vectors_written"] == args.lines
        rows.append((f"Ray Data, {cores} CPUs (actors)", "float32", seconds, encode_s))
        ray.shutdown()

    print(f"\n| engine ({cores} cores) | precision | seconds | sentences/s | vs encode | overhead |")
    print("|---|---|---:|---:|---:|---:|")
    for name, precision, seconds, reference in rows:
        print(
            f"| {name} | {precision} | {seconds:.1f} | {args.lines / seconds:,.0f} | "
            f"{reference / seconds:.2f}× | {100 * (seconds / reference - 1):+.0f} % |"
        )
    print(
        json.dumps(
            {
                "benchmark": "scale_out",
                "machine": machine_description(),
                "cpu_flags": cpu_flags(),
                "model": args.model,
                "lines": args.lines,
                "batch_size": args.batch_size,
                "rows": [
                    {"engine": n, "precision": p, "seconds": round(s, 2), "overhead": round(s / r - 1, 3)}
                    for n, p, s, r in rows
                ],
            }
        )
    )


if __name__ == "__main__":
    main()
