"""Cross-encoder and DSE SavedModels answer like `predict_pairs` / `embed` in a fresh
process that imports only tensorflow and tensorflow_text; LoRA makes both small deltas."""

import json
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

from keras_sentemb.export import export_saved_model
from keras_sentemb.layers.backbone_lora import ALL_TRANSFORMER_DENSE_LAYERS
from keras_sentemb.zoo.model_artifact import load_artifact, save_artifact
from tests.conftest import make_tiny_cross_encoder
from tests.models.test_dse import make_dse

FIRST = ["the cat sat on the mat .", "a dog ran fast", ""]
SECOND = ["a cat sat", "hello world", "rain and storm"]

SERVE = textwrap.dedent("""
    import json, sys
    import tensorflow as tf
    import tensorflow_text  # noqa: F401
    a, b = (tf.constant(t) for t in json.loads(sys.argv[1]))
    results = []
    for folder in sys.argv[2:]:
        model = tf.saved_model.load(folder)
        out = {"signatures": sorted(model.signatures)}
        if "score" in model.signatures:
            out["scores"] = model.signatures["score"](texts_a=a, texts_b=b)["scores"].numpy().tolist()
            out["embedding"] = model.signatures["serving_default"](texts=a)["embedding"].numpy().tolist()
        else:
            out["scores"] = model.signatures["serving_default"](texts_a=a, texts_b=b)["scores"].numpy().tolist()
        results.append(out)
    print(json.dumps(results))
""")


def serve_in_fresh_process(*folders):
    """What each SavedModel answers in one new process that imports only TF and TF Text."""
    run = subprocess.run(
        [sys.executable, "-c", SERVE, json.dumps([FIRST, SECOND]), *folders],
        capture_output=True,
        text=True,
        check=True,
        env={**os.environ, "TF_CPP_MIN_LOG_LEVEL": "3"},
    )
    return json.loads(run.stdout.strip().splitlines()[-1])


def test_cross_encoder_and_dse_savedmodels_answer_like_the_models(tmp_path):
    cross_encoder = make_tiny_cross_encoder(num_labels=2, seed=3)
    dse = make_dse(num_labels=1, seed=2)
    dse.head.output_layer.kernel.assign(np.random.default_rng(0).normal(size=dse.head.output_layer.kernel.shape))
    served_ce, served_dse = serve_in_fresh_process(
        export_saved_model(cross_encoder, tmp_path / "ce", version=1),
        export_saved_model(dse, tmp_path / "dse", version=1),
    )
    assert served_ce["signatures"] == ["serving_default"]
    np.testing.assert_allclose(served_ce["scores"], cross_encoder.predict_pairs(FIRST, SECOND), atol=1e-5)
    assert served_dse["signatures"] == ["score", "serving_default"]
    np.testing.assert_allclose(served_dse["embedding"], dse.embed(FIRST), atol=1e-5)
    np.testing.assert_allclose(np.array(served_dse["scores"])[:, 0], dse.predict_pairs(FIRST, SECOND), atol=1e-4)
    with pytest.raises(FileExistsError):
        export_saved_model(cross_encoder, tmp_path / "ce", version=1)


def test_lora_cross_encoder_trains_adapters_and_head_only_and_packs_small(tmp_path):
    model = make_tiny_cross_encoder(num_labels=1, seed=4)
    model.enable_lora(2)
    trainable = {w.path for w in model.trainable_weights}
    assert trainable and all("lora_kernel" in p or p.startswith("logits/") for p in trainable)
    for variable in model.weights:
        if variable.path.endswith("lora_kernel_b"):
            variable.assign(np.random.default_rng(1).normal(0, 0.1, variable.shape))
    description = save_artifact(model, tmp_path / "a", weights_dtype="float32")
    np.testing.assert_allclose(
        load_artifact(tmp_path / "a").predict_pairs(FIRST, SECOND), model.predict_pairs(FIRST, SECOND), atol=1e-5
    )
    assert description["lora_rank"] == 2 and "lora_targets" not in description  # keras-hub's default layers


def test_lora_on_every_dense_layer_is_stored_with_its_layer_names(tmp_path):
    model = make_tiny_cross_encoder(num_labels=1, seed=4)
    model.enable_lora(2, ALL_TRANSFORMER_DENSE_LAYERS)
    adapted = {w.path.split("/")[-2] for w in model.trainable_weights if "lora_kernel" in w.path}
    assert adapted == set(ALL_TRANSFORMER_DENSE_LAYERS)
    for variable in model.weights:
        if variable.path.endswith("lora_kernel_b"):
            variable.assign(np.random.default_rng(1).normal(0, 0.1, variable.shape))
    description = save_artifact(model, tmp_path / "a", weights_dtype="float32")
    assert description["lora_targets"] == sorted(ALL_TRANSFORMER_DENSE_LAYERS)
    np.testing.assert_allclose(
        load_artifact(tmp_path / "a").predict_pairs(FIRST, SECOND), model.predict_pairs(FIRST, SECOND), atol=1e-5
    )


def test_dse_lora_keeps_the_head_trainable():
    dse = make_dse(seed=5)
    dse.enable_lora(2)
    paths = {w.path for w in dse.trainable_weights}
    assert any("lora_kernel" in p for p in paths) and any("similarity/" in p for p in paths)
    assert not any(p.endswith("query/kernel") for p in paths)
    assert dse.encode(FIRST).shape == (3, dse.embedding_dim)


def test_an_mpnet_cross_encoder_with_sigmoid_scores_exports_and_packs_as_a_lora_delta(tmp_path):
    from keras_sentemb.models import CrossEncoder
    from tests.models.test_cross_encoder import MPNET_FOLDER

    model = CrossEncoder.from_pretrained(MPNET_FOLDER, num_labels=1, score_activation="sigmoid")
    model.enable_lora(2, ALL_TRANSFORMER_DENSE_LAYERS)
    trainable = {w.path.split("/")[0] for w in model.trainable_weights if "lora_kernel" not in w.path}
    assert trainable == {"cls_dense", "logits"}  # the head; the backbone only through its adapters
    for variable in model.weights:
        if variable.path.endswith("lora_kernel_b"):
            variable.assign(np.random.default_rng(1).normal(0, 0.1, variable.shape))
    scores = model.predict_pairs(FIRST, SECOND)
    assert np.all((scores > 0) & (scores < 1))
    (served,) = serve_in_fresh_process(export_saved_model(model, tmp_path / "ce", version=1))
    np.testing.assert_allclose(np.array(served["scores"])[:, 0], scores, atol=1e-5)
    save_artifact(model, tmp_path / "a", weights_dtype="float32")
    restored = load_artifact(tmp_path / "a")
    assert restored.score_activation == "sigmoid" and restored.input_names == ("token_ids", "padding_mask")
    np.testing.assert_allclose(restored.predict_pairs(FIRST, SECOND), scores, atol=1e-5)
