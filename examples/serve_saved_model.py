"""Loads an exported keras-sentemb SavedModel with TensorFlow alone and embeds texts.

This is what a serving process does: it imports only `tensorflow` and `tensorflow_text`
(to register the tokenizer ops), never keras-sentemb.

    python examples/serve_saved_model.py out/quickstart/minilm/1 texts.txt vectors.npy
"""

import sys
import time

import numpy as np
import tensorflow as tf
import tensorflow_text  # noqa: F401  (registers the TF Text ops used by the tokenizer)


def main(model_dir, texts_path, output_path):
    start = time.perf_counter()
    loaded = tf.saved_model.load(model_dir)
    serve = loaded.signatures["serving_default"]
    load_seconds = time.perf_counter() - start
    with open(texts_path, encoding="utf-8") as f:
        texts = f.read().splitlines()
    start = time.perf_counter()
    embedding = serve(texts=tf.constant(texts))["embedding"].numpy()
    run_seconds = time.perf_counter() - start
    np.save(output_path, embedding)
    project_modules = sorted(m for m in sys.modules if m.split(".")[0] == "keras_sentemb")
    print(
        f"fresh process: loaded in {load_seconds:.2f}s, embedded {len(texts)} texts in "
        f"{run_seconds:.2f}s, keras_sentemb modules imported: {len(project_modules)}"
    )


if __name__ == "__main__":
    main(*sys.argv[1:4])
