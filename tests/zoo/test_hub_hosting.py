"""`zoo.publish` lays each model's serving SavedModel out by tensorflow_hub's hosting protocol:
served by a plain `python -m http.server`, `hub.load("http://HOST/<name>/<version>")` and
`hub.KerasLayer` resolve it in a process that imports only tensorflow, tensorflow_text and
tensorflow_hub, and Keras 3's `keras.layers.TFSMLayer` loads the folder `hub.resolve` gives;
every route returns the vectors (and codes) of `encode` (and `hash`)."""

import contextlib
import json
import os
import subprocess
import sys

import keras
import numpy as np
import tensorflow as tf

from keras_sentemb import zoo
from keras_sentemb.layers import SemanticHashing
from keras_sentemb.models import HashedEncoder
from keras_sentemb.zoo.model_artifact import save_artifact
from tests.conftest import make_tiny_encoder
from tests.zoo.test_local_zoo import write_tiny_zoo_model

TEXTS = ["the cat sat on the mat", "a dog ran fast", ""]

HUB_CLIENT = """
import json, sys
import tensorflow as tf, tensorflow_text, tensorflow_hub as hub
assert not any(name.startswith("keras_sentemb") for name in sys.modules)
url, texts = sys.argv[1], tf.constant(json.loads(sys.argv[2]))
module = hub.load(url)
out = {"folder": hub.resolve(url), "signatures": sorted(module.signatures)}
out["load"] = module.signatures["serving_default"](texts=texts)["embedding"].numpy().tolist()
layer = hub.KerasLayer(url, signature="serving_default", signature_outputs_as_dict=True)
out["keras_layer"] = layer({"texts": texts})["embedding"].numpy().tolist()
if "hash" in module.signatures:
    out["hash"] = module.signatures["hash"](texts=texts)["codes"].numpy().tolist()
print(json.dumps(out))
"""


@contextlib.contextmanager
def http_server(folder):
    """`python -m http.server` over `folder` in a subprocess, on a free loopback port."""
    server = subprocess.Popen(
        [sys.executable, "-u", "-m", "http.server", "0", "--bind", "127.0.0.1", "--directory", str(folder)],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    try:
        line = server.stdout.readline()  # "Serving HTTP on 127.0.0.1 port 40123 (http://127.0.0.1:40123/) ..."
        yield f"http://127.0.0.1:{line.split(' port ')[1].split()[0]}"
    finally:
        server.kill()
        server.wait()


def served_by_hub(store, path, texts, cache_dir):
    """Serves `store` with `python -m http.server` and runs `HUB_CLIENT` on `<url>/<path>` in a
    fresh process; returns what it printed (vectors by route, codes, the resolved folder)."""
    env = {**os.environ, "TFHUB_CACHE_DIR": str(cache_dir), "TF_CPP_MIN_LOG_LEVEL": "3"}
    with http_server(store) as url:
        result = subprocess.run(
            [sys.executable, "-c", HUB_CLIENT, f"{url}/{path}", json.dumps(texts)],
            capture_output=True,
            text=True,
            env=env,
            timeout=300,
        )
    assert result.returncode == 0, result.stderr[-3000:]
    return json.loads(result.stdout.strip().splitlines()[-1])


def write_tiny_hashed_zoo_model(zoo_dir):
    keras.utils.set_random_seed(3)
    hashed = HashedEncoder(make_tiny_encoder(seed=9), SemanticHashing(64))
    write_tiny_zoo_model(zoo_dir, name="tiny-hashed")  # config, card and index entry
    folder = os.path.join(zoo_dir, "tiny-hashed")
    for name in ("artifact.json", "model.json", "weights.npz"):
        os.remove(os.path.join(folder, name))
    save_artifact(hashed, folder, weights_dtype="float32")
    return hashed


def test_hub_load_keras_layer_and_tfsmlayer_give_the_vectors_and_codes_of_the_model(tmp_path, monkeypatch):
    zoo_dir, store = tmp_path / "zoo", tmp_path / "store"
    monkeypatch.setenv("KERAS_SENTEMB_ZOO", str(zoo_dir))
    monkeypatch.setenv("KERAS_SENTEMB_HOME", str(tmp_path / "home"))
    hashed = write_tiny_hashed_zoo_model(str(zoo_dir))
    entry = zoo.publish("tiny-hashed", str(store), hub=True)
    assert entry["hub"]["path"] == "tiny-hashed/1" and (store / "tiny-hashed" / "1").is_file()
    assert (
        json.loads((store / "index.json").read_text())["models"]["tiny-hashed"]["versions"]["1"]["hub"] == entry["hub"]
    )

    served = served_by_hub(store, "tiny-hashed/1", TEXTS, tmp_path / "hub-cache")
    want = hashed.encode(TEXTS)
    for route in ("load", "keras_layer"):
        np.testing.assert_allclose(np.array(served[route]), want, atol=1e-5, err_msg=route)
    np.testing.assert_array_equal(np.array(served["hash"], np.uint8), hashed.hash(TEXTS))
    assert {"serving_default", "hash"} <= set(served["signatures"])

    # Keras 3: the folder hub.resolve() unpacked, as a layer.
    layer = keras.layers.TFSMLayer(served["folder"], call_endpoint="serving_default")
    vectors = layer(tf.constant(TEXTS))["embedding"]
    np.testing.assert_allclose(keras.ops.convert_to_numpy(vectors), want, atol=1e-5)
