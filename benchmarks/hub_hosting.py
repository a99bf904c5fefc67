"""tensorflow_hub hosting of the zoo, measured on the real models: `zoo.publish` to a folder,
`python -m http.server` over it, then in a fresh process that imports only tensorflow,
tensorflow_text and tensorflow_hub: `hub.load("http://HOST/<name>/<version>")` and
`hub.KerasLayer`; in this process Keras 3's `keras.layers.TFSMLayer` on the folder that
`hub.resolve` unpacked. Prints max |Δ| of every route to `encode` (and whether the `hash`
signature gives the bits of `hash`).

    python benchmarks/hub_hosting.py [--models minilm-l6,minilm-l6-hash256]

Needs the zoo folder (`$KERAS_SENTEMB_ZOO`, or the installed keras-sentemb-zoo) and the
MiniLM wheel; about a minute a model on 2 cores.
"""

import argparse
import os
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, REPO)  # the test's HTTP server and hub client, reused
os.environ.setdefault("KERAS_SENTEMB_ZOO", os.path.join(REPO, "zoo"))

import keras  # noqa: E402
import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402
from common import machine_description  # noqa: E402

from keras_sentemb import zoo  # noqa: E402
from tests.zoo.test_hub_hosting import served_by_hub  # noqa: E402

TEXTS = [
    "A man is playing a guitar.",
    "Will it rain tomorrow?",
    "",
    "Straße, café und Ünïcödé",
    "猫が座った。",
    "How do I bake bread at home without an oven?",
]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--models", default="minilm-l6,minilm-l6-hash256")
    args = parser.parse_args()
    print(f"# tensorflow_hub hosting — {machine_description()}\n")
    print(
        "| model | hub.load max \\|Δ\\| | hub.KerasLayer max \\|Δ\\| | TFSMLayer max \\|Δ\\| | hash signature = hash() | module bytes | seconds |"
    )
    print("|---|---:|---:|---:|---|---:|---:|")
    with tempfile.TemporaryDirectory(prefix="hub-hosting-") as work:
        store = os.path.join(work, "store")
        for name in args.models.split(","):
            start = time.perf_counter()
            entry = zoo.publish(name, store)
            model = zoo.load(name)
            want = model.encode(TEXTS, progress=False)
            served = served_by_hub(store, entry["hub"]["path"], TEXTS, os.path.join(work, "hub-cache"))
            layer = keras.layers.TFSMLayer(served["folder"], call_endpoint="serving_default")
            tfsm = keras.ops.convert_to_numpy(layer(tf.constant(TEXTS))["embedding"])
            same_bits = "-"
            if "hash" in served:
                same_bits = str(bool(np.array_equal(np.array(served["hash"], np.uint8), model.hash(TEXTS))))
            print(
                f"| {name} v{entry['hub']['path'].rsplit('/', 1)[1]} | {np.abs(np.array(served['load']) - want).max():.2e} | "
                f"{np.abs(np.array(served['keras_layer']) - want).max():.2e} | {np.abs(tfsm - want).max():.2e} | "
                f"{same_bits} | {entry['hub']['bytes']:,} | {time.perf_counter() - start:.0f} |",
                flush=True,
            )


if __name__ == "__main__":
    main()
