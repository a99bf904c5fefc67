"""qwen3_layer_states: a Qwen3 backbone's block outputs in OpenVINO-fusable ops (one additive causal and
padding mask, rotary tables computed once, grouped key/value heads repeated), equal to keras-hub's layers at
every real token under left and right padding; SentenceEncoder.openvino_graph_fn over Qwen3 equal to
embed_fn; and the OpenVINO model keeping only the function's own output."""

import os

import keras
import numpy as np
import pytest

from keras_sentemb.backbones import HuggingFaceQwen3Backbone
from keras_sentemb.layers.backbone_lora import enable_backbone_lora
from keras_sentemb.models import SentenceEncoder
from keras_sentemb.pretrained.qwen3_inference_graph import qwen3_layer_states, supports_qwen3_layer_states
from keras_sentemb.pretrained.transformer_layer_states import transformer_layer_states
from tests.conftest import FIXTURES

TOKEN_IDS = np.array([[3, 7, 8, 9, 2, 1, 4], [5, 10, 2, 6, 9, 1, 1], [1, 7, 7, 8, 9, 10, 2]], "int32")
LEFT_PADDING = np.array([[1] * 7, [0, 0, 0, 1, 1, 1, 1], [0, 1, 1, 1, 1, 1, 1]], "int32")
RIGHT_PADDING = LEFT_PADDING[:, ::-1].copy()


def tiny_qwen3(seed, **overrides):
    keras.utils.set_random_seed(seed)
    backbone = HuggingFaceQwen3Backbone(
        vocabulary_size=20,
        num_layers=2,
        num_query_heads=4,
        num_key_value_heads=2,  # grouped-query attention: two query heads per key/value head
        head_dim=4,
        hidden_dim=8,
        intermediate_dim=16,
        **overrides,
    )
    scales = np.random.default_rng(seed)
    for weight in backbone.weights:  # norms' scales random too (and each its own), not ones
        if "scale" in weight.path:
            weight.assign(scales.uniform(0.5, 1.5, weight.shape).astype("float32"))
    return backbone


@pytest.mark.parametrize("padding_mask", [LEFT_PADDING, RIGHT_PADDING], ids=["left", "right"])
def test_every_block_output_equals_the_keras_layers_on_real_tokens(padding_mask):
    backbone = tiny_qwen3(3)
    ours = qwen3_layer_states(backbone, TOKEN_IDS, padding_mask)
    keras_states = transformer_layer_states(backbone)({"token_ids": TOKEN_IDS, "padding_mask": padding_mask})
    real = padding_mask.astype(bool)
    assert len(ours) == 2
    for mine, reference in zip(ours, keras_states):
        np.testing.assert_allclose(np.asarray(mine)[real], np.asarray(reference)[real], atol=1e-5)


@pytest.mark.parametrize("padding_mask", [LEFT_PADDING, RIGHT_PADDING], ids=["left", "right"])
def test_last_token_only_computes_the_last_block_at_each_rows_last_real_token(padding_mask):
    backbone = tiny_qwen3(5)
    full = np.asarray(qwen3_layer_states(backbone, TOKEN_IDS, padding_mask)[-1])
    last = np.asarray(qwen3_layer_states(backbone, TOKEN_IDS, padding_mask, last_token_only=True)[-1])
    positions = [np.flatnonzero(row).max() for row in padding_mask]
    assert last.shape == (3, 1, 8)
    np.testing.assert_allclose(last[:, 0], full[np.arange(3), positions], atol=1e-5)


def test_it_reads_the_weights_when_called_so_lora_adapters_count():
    backbone = tiny_qwen3(4)
    enable_backbone_lora(backbone, 2)
    for weight in backbone.trainable_weights:
        weight.assign(np.full(weight.shape, 0.05, "float32"))
    inputs = {"token_ids": TOKEN_IDS, "padding_mask": LEFT_PADDING}
    reference = transformer_layer_states(backbone)(inputs)[-1]
    real = LEFT_PADDING.astype(bool)
    np.testing.assert_allclose(
        np.asarray(qwen3_layer_states(backbone, TOKEN_IDS, LEFT_PADDING)[-1])[real],
        np.asarray(reference)[real],
        atol=1e-5,
    )


def test_only_float32_qwen3_backbones_without_sliding_windows_are_supported():
    assert supports_qwen3_layer_states(tiny_qwen3(0))
    assert not supports_qwen3_layer_states(tiny_qwen3(0, dtype="mixed_bfloat16"))
    assert not supports_qwen3_layer_states(tiny_qwen3(0, sliding_window_size=3))


def test_the_openvino_graph_equals_embed_fn_with_last_token_pooling():
    encoder = SentenceEncoder.from_pretrained(os.path.join(FIXTURES, "st_folders", "qwen3_lasttoken_prompts_new"))
    assert encoder.openvino_graph_fn() is not encoder.embed_fn()
    assert encoder.pools_only_the_last_token()
    for padding_mask in (LEFT_PADDING, RIGHT_PADDING):
        arguments = (TOKEN_IDS, padding_mask)
        np.testing.assert_allclose(
            np.asarray(encoder.openvino_graph_fn()(*arguments)), np.asarray(encoder.embed_fn()(*arguments)), atol=1e-5
        )


def test_the_converted_model_has_only_the_functions_output():
    pytest.importorskip("openvino")
    from keras_sentemb.runtime.openvino_runtime import OpenVINORuntime

    encoder = SentenceEncoder.from_pretrained(os.path.join(FIXTURES, "st_folders", "qwen3_lasttoken_prompts_new"))
    runtime = OpenVINORuntime(encoder.openvino_graph_fn().get_concrete_function(), "float32")
    assert len(runtime.compiled.outputs) == 1
    np.testing.assert_allclose(
        runtime(TOKEN_IDS, LEFT_PADDING), np.asarray(encoder.embed_fn()(TOKEN_IDS, LEFT_PADDING)), atol=1e-5
    )
