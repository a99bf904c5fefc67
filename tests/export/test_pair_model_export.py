"""Cross-encoder and DSE SavedModels answer like `predict_pairs` / `embed` in a fresh
process that imports only tensorflow and tensorflow_text; LoRA makes both small deltas."""

import json
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

from keras_sentemb.zoo.model_artifact import load_artifact, save_artifact
from tests.conftest import make_tiny_cross_encoder
from tests.models.test_dse import make_dse

FIRST = ["the cat sat on the mat .", "a dog ran fast", ""]
SECOND = ["a cat sat", "hello world", "rain and storm"]

SERVE = textwrap.dedent("""
    import json, sys
    import tensorflow as tf
    import tensorflow_text  # noqa: F401
    model = tf.saved_model.load(sys.argv[1])
    a, b = (tf.constant(t) for t in json.loads(sys.argv[2]))
    out = {"signatures": sorted(model.signatures)}
    if "score" in model.signatures:
        out["scores"] = model.signatures["score"](texts_a=a, texts_b=b)["scores"].numpy().tolist()
        out["embedding"] = model.signatures["serving_default"](texts=a)["embedding"].numpy().tolist()
    else:
        out["scores"] = model.signatures["serving_default"](texts_a=a, texts_b=b)["scores"].numpy().tolist()
    print(json.dumps(out))
""")


def serve_in_fresh_process(folder):
    run = subprocess.run([sys.executable, "-c", SERVE, folder, json.dumps([FIRST, SECOND])],
                         capture_output=True, text=True, check=True,
                         env={**os.environ, "TF_CPP_MIN_LOG_LEVEL": "3"})
    return json.loads(run.stdout.strip().splitlines()[-1])


def test_a_cross_encoder_savedmodel_scores_pairs_like_predict_pairs(tmp_path):
    model = make_tiny_cross_encoder(num_labels=2, seed=3)
    served = serve_in_fresh_process(model.export(tmp_path / "ce", version=1))
    assert served["signatures"] == ["serving_default"]
    np.testing.assert_allclose(served["scores"], model.predict_pairs(FIRST, SECOND), atol=1e-5)
    with pytest.raises(FileExistsError):
        model.export(tmp_path / "ce", version=1)


def test_a_dse_savedmodel_embeds_and_scores_like_the_model(tmp_path):
    dse = make_dse(num_labels=1, seed=2)
    dse.head.output_layer.kernel.assign(np.random.default_rng(0).normal(size=dse.head.output_layer.kernel.shape))
    served = serve_in_fresh_process(dse.export(tmp_path / "dse", version=1))
    assert served["signatures"] == ["score", "serving_default"]
    np.testing.assert_allclose(served["embedding"], dse.embed(FIRST), atol=1e-5)
    np.testing.assert_allclose(np.array(served["scores"])[:, 0], dse.predict_pairs(FIRST, SECOND), atol=1e-4)


def test_lora_cross_encoder_trains_adapters_and_head_only_and_packs_small(tmp_path):
    model = make_tiny_cross_encoder(num_labels=1, seed=4)
    model.enable_lora(2)
    trainable = {w.path for w in model.trainable_weights}
    assert trainable and all("lora_kernel" in p or p.startswith("logits/") for p in trainable)
    for variable in model.weights:
        if variable.path.endswith("lora_kernel_b"):
            variable.assign(np.random.default_rng(1).normal(0, 0.1, variable.shape))
    description = save_artifact(model, tmp_path / "a", weights_dtype="float32")
    np.testing.assert_allclose(load_artifact(tmp_path / "a").predict_pairs(FIRST, SECOND),
                               model.predict_pairs(FIRST, SECOND), atol=1e-5)
    assert description["lora_rank"] == 2


def test_dse_lora_keeps_the_head_trainable():
    dse = make_dse(seed=5)
    dse.enable_lora(2)
    paths = {w.path for w in dse.trainable_weights}
    assert any("lora_kernel" in p for p in paths) and any("similarity/" in p for p in paths)
    assert not any(p.endswith("query/kernel") for p in paths)
    assert dse.encode(FIRST).shape == (3, dse.embedding_dim)
