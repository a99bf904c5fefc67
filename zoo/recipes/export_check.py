"""Checks that `zoo.export` of each zoo model serves, in a fresh process that imports only
tensorflow and tensorflow_text, what `zoo.load(name)` computes in Python.

    python -m zoo.recipes.export_check                 # every model of zoo/index.json
    python -m zoo.recipes.export_check minilm-l6 ...   # some of them

Prints one line per model: signatures, the largest difference of unit embeddings (or of
pair scores for a cross-encoder) over the probe texts — 1 if any code bit of a hashed
model differs — and the seconds it took; exits 1 when a difference exceeds 1e-4.
"""

import json
import os
import subprocess
import sys
import tempfile
import textwrap
import time

import numpy as np

from keras_sentemb import zoo
from keras_sentemb.utils.unit_vectors import unit_rows
from keras_sentemb.zoo.zoo_index import read_zoo_index
from zoo.recipes.zoo_build import PROBE_TEXTS
from zoo.recipes.zoo_folder import ZOO_DIR  # noqa: F401  (points keras_sentemb.zoo at zoo/)

SERVE = textwrap.dedent("""
    import json, sys
    import tensorflow as tf
    import tensorflow_text  # noqa: F401  (registers the tokenizer ops)
    model = tf.saved_model.load(sys.argv[1])
    texts = json.loads(sys.argv[2])
    default = model.signatures["serving_default"]
    if "texts_a" in default.structured_input_signature[1]:
        out = default(texts_a=tf.constant(texts), texts_b=tf.constant(texts[::-1]))["scores"]
    else:
        out = default(texts=tf.constant(texts))["embedding"]
    result = {"signatures": sorted(model.signatures), "outputs": out.numpy().tolist()}
    if "hash" in model.signatures:
        result["codes"] = model.signatures["hash"](texts=tf.constant(texts))["codes"].numpy().tolist()
    print(json.dumps(result))
""")


def check_model(name, folder):
    """(signatures, max difference, seconds) of exporting and serving `name`."""

    start = time.perf_counter()
    model = zoo.load(name)
    if hasattr(model, "encode"):
        expected = np.asarray(model.encode(PROBE_TEXTS, progress=False), np.float64)
    else:
        expected = np.asarray(model.predict_pairs(PROBE_TEXTS, PROBE_TEXTS[::-1], progress=False), np.float64)
    served_path = zoo.export(name, os.path.join(folder, name), version=1)
    run = subprocess.run(
        [sys.executable, "-c", SERVE, served_path, json.dumps(PROBE_TEXTS)],
        capture_output=True,
        text=True,
        check=False,
        env={**os.environ, "TF_CPP_MIN_LOG_LEVEL": "3"},
    )
    if run.returncode != 0:
        raise RuntimeError(f"{name}: serving failed:\n{run.stderr[-2000:]}")
    served = json.loads(run.stdout.strip().splitlines()[-1])
    outputs = np.asarray(served["outputs"], np.float64)
    if hasattr(model, "encode"):  # embeddings: DSE serves ψ unnormalised, encode() unit vectors
        outputs, expected = unit_rows(outputs), unit_rows(expected)
    difference = float(np.abs(outputs.reshape(expected.shape) - expected).max())
    if hasattr(model, "hash"):  # the codes must agree bit for bit
        codes = np.asarray(served["codes"], np.uint8)
        difference = max(difference, float(np.any(codes != model.hash(PROBE_TEXTS, progress=False))))
    return served["signatures"], difference, time.perf_counter() - start


def main(argv=None):
    names = list(argv if argv is not None else sys.argv[1:]) or sorted(read_zoo_index(zoo.zoo_dir())["models"])
    failed = False
    with tempfile.TemporaryDirectory() as folder:
        for name in names:
            signatures, difference, seconds = check_model(name, folder)
            ok = difference <= 1e-4
            failed |= not ok
            print(
                f"{name:<28} {', '.join(signatures):<28} max |Δ| {difference:.2e} "
                f"{'ok' if ok else 'MISMATCH'}  ({seconds:.0f} s)",
                flush=True,
            )
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
