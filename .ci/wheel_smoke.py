"""Smoke test of the installed wheels, run by `.ci/wheel_smoke` from a folder outside the checkout,
in a fresh venv that holds keras-sentemb and keras-sentemb-zoo only as wheels.

It checks what a new user does first: the zoo lists every model of the companion wheel, each
model loads offline and computes the outputs its build recorded (probe.json), `encode` and
`hash` work, a SavedModel exports and loads back, the `keras-sentemb` console script runs, and
all-mpnet-base-v2 loads from its five part-wheels (`from_pretrained("mpnet-base")`: assembled into
the fresh `$KERAS_SENTEMB_HOME`), encodes, exports, and its SavedModel serves the same vectors in a
fresh process that imports only TensorFlow and TF Text.
"""

import json
import os
import subprocess
import sys
import tempfile
import time

import numpy as np
import tensorflow as tf

import keras_sentemb
from keras_sentemb import zoo
from keras_sentemb.export import export_saved_model

start = time.perf_counter()
checkout_markers = [p for p in sys.path if os.path.isfile(os.path.join(p, "setup.cfg"))]
assert not checkout_markers, f"a checkout is on sys.path: {checkout_markers}"
assert "site-packages" in keras_sentemb.__file__, keras_sentemb.__file__
assert "KERAS_SENTEMB_ZOO" not in os.environ
print(f"keras_sentemb {keras_sentemb.__version__} from {os.path.dirname(keras_sentemb.__file__)}")
print(f"zoo folder: {zoo.zoo_dir()}")

with open(os.path.join(zoo.zoo_dir(), "index.json"), encoding="utf-8") as f:
    indexed = sorted(json.load(f)["models"])
listed = sorted(entry["name"] for entry in zoo.list())
assert listed == indexed and len(listed) >= 8, (listed, indexed)


def outputs_of(model, texts):
    """What the zoo build recorded in probe.json (zoo/recipes/zoo_build.model_outputs)."""
    if hasattr(model, "hash"):
        return np.concatenate([model.encode(texts, progress=False), model.hash(texts, packed=False)], axis=1)
    if hasattr(model, "encode"):
        return model.encode(texts, progress=False)
    return np.asarray(model.predict_pairs(texts, texts[::-1], progress=False))


hashed = None
for name in listed:
    started = time.perf_counter()
    model = zoo.load(name)  # the word-level members take their MiniLM word table from the zoo (zoo/word-vectors)
    load_seconds = time.perf_counter() - started
    with open(os.path.join(zoo.model_dir(name), "probe.json"), encoding="utf-8") as f:
        probe = json.load(f)
    worst = float(np.abs(outputs_of(model, probe["texts"]) - np.asarray(probe["outputs"])).max())
    print(
        f"{name:<32} {type(model).__name__:<16} loaded in {load_seconds:4.1f} s, max |Δ| to the recorded outputs {worst:.2e}"
    )
    assert worst <= 2e-4, name
    if hasattr(model, "hash") and hashed is None:
        hashed = model

codes = hashed.hash(["Will it rain tomorrow?"])
assert codes.dtype == np.uint8 and codes.shape == (1, hashed.bits // 8)

encoder = zoo.load("minilm-l6")
folder = export_saved_model(encoder, os.path.join(tempfile.mkdtemp(), "minilm"), version=1)
served = tf.saved_model.load(folder).signatures["serving_default"]
embedding = served(texts=tf.constant(["A man is playing a guitar."]))["embedding"].numpy()
difference = np.abs(embedding - encoder.encode(["A man is playing a guitar."]))
print(f"export: {folder}, loaded back with tf.saved_model.load, max |Δ| to encode {difference.max():.2e}")
assert difference.max() <= 1e-5

mpnet = keras_sentemb.SentenceEncoder.from_pretrained("mpnet-base")
texts = ["A man is playing a guitar.", "Someone plays an instrument.", "The stock market fell."]
vectors = mpnet.encode(texts)
assert vectors.shape == (3, 768) and vectors[0] @ vectors[1] > vectors[0] @ vectors[2] + 0.2
folder = export_saved_model(mpnet, os.path.join(tempfile.mkdtemp(), "mpnet"), version=1)
served = subprocess.run(
    [
        sys.executable,
        "-c",
        "import sys, json, tensorflow as tf, tensorflow_text; "
        "serve = tf.saved_model.load(sys.argv[1]).signatures['serving_default']; "
        "print(json.dumps(serve(texts=tf.constant(json.loads(sys.argv[2])))['embedding'].numpy().tolist())); "
        "assert not [m for m in sys.modules if m.startswith('keras_sentemb')], 'the SavedModel needed keras_sentemb'",
        folder,
        json.dumps(texts),
    ],
    check=True,
    capture_output=True,
    text=True,
).stdout
difference = np.abs(np.asarray(json.loads(served.strip().splitlines()[-1])) - vectors).max()
print(
    f"mpnet-base from the part-wheels: encode {vectors.shape}, SavedModel in a TF-only process max |Δ| {difference:.2e}"
)
assert difference <= 1e-5

script = os.path.join(os.path.dirname(sys.executable), "keras-sentemb")
listing = subprocess.run([script, "zoo", "list"], check=True, capture_output=True, text=True).stdout
assert all(name in listing for name in listed), listing
print(f"console script: `keras-sentemb zoo list` lists {len(listed)} models")
print(f"wheel smoke test passed in {time.perf_counter() - start:.0f} s")
