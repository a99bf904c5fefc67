"""mpnet_layer_states: an MPNet backbone's block outputs in OpenVINO-fusable ops, equal to the Keras
layers'; and SentenceEncoder.openvino_graph_fn over MPNet (and over any sentence-transformers
head: Dense, residuals, Normalize, truncation) equal to embed_fn."""

import os

import numpy as np
import pytest

from keras_sentemb.layers.backbone_lora import enable_backbone_lora
from keras_sentemb.models import SentenceEncoder
from keras_sentemb.pretrained.mpnet_inference_graph import mpnet_layer_states, supports_mpnet_layer_states
from keras_sentemb.pretrained.transformer_layer_states import transformer_layer_states
from tests.conftest import FIXTURES, make_tiny_mpnet

TOKEN_IDS = np.array([[0, 7, 8, 9, 2, 1, 1], [0, 10, 2, 1, 1, 1, 1], [0, 7, 7, 8, 9, 10, 2]], "int32")
PADDING_MASK = (TOKEN_IDS != 1).astype("int32")
REAL = PADDING_MASK.astype(bool)


def test_every_block_output_equals_the_keras_layers_on_real_tokens():
    backbone = make_tiny_mpnet(3)
    ours = mpnet_layer_states(backbone, TOKEN_IDS, PADDING_MASK)
    keras_states = transformer_layer_states(backbone)({"token_ids": TOKEN_IDS, "padding_mask": PADDING_MASK})
    assert len(ours) == 2
    for mine, reference in zip(ours, keras_states):
        np.testing.assert_allclose(np.asarray(mine)[REAL], np.asarray(reference)[REAL], atol=1e-5)


def test_it_reads_the_weights_when_called_so_lora_adapters_count():
    backbone = make_tiny_mpnet(4)
    enable_backbone_lora(backbone, 2)
    for weight in backbone.trainable_weights:
        weight.assign(np.full(weight.shape, 0.05, "float32"))
    reference = transformer_layer_states(backbone)({"token_ids": TOKEN_IDS, "padding_mask": PADDING_MASK})[-1]
    np.testing.assert_allclose(
        np.asarray(mpnet_layer_states(backbone, TOKEN_IDS, PADDING_MASK)[-1])[REAL],
        np.asarray(reference)[REAL],
        atol=1e-5,
    )


def test_only_float32_mpnet_backbones_are_supported():
    assert supports_mpnet_layer_states(make_tiny_mpnet(0))
    assert not supports_mpnet_layer_states(make_tiny_mpnet(0, dtype="mixed_bfloat16"))


@pytest.mark.parametrize(
    "name", ["mpnet_all_modes_new", "distilbert_sqrt_residual_old", "bert_weighted_last_prompts_new"]
)
def test_the_openvino_graph_equals_embed_fn_with_every_head(name):
    encoder = SentenceEncoder.from_pretrained(os.path.join(FIXTURES, "st_folders", name))
    arguments = (TOKEN_IDS.clip(0, 50), PADDING_MASK)
    np.testing.assert_allclose(
        np.asarray(encoder.openvino_graph_fn()(*arguments)), np.asarray(encoder.embed_fn()(*arguments)), atol=1e-5
    )
