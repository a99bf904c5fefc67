"""bert_layer_states: a BERT backbone's block outputs in OpenVINO-fusable ops, equal to the
Keras layers' outputs; and SentenceEncoder.openvino_graph_fn, which converts it, equal to
embed_fn for every pooling and for LoRA, and embed_fn itself where it does not apply."""

import keras
import keras_hub
import numpy as np
import pytest

from keras_sentemb.models import SentenceEncoder
from keras_sentemb.pretrained.bert_inference_graph import bert_layer_states, supports_bert_layer_states
from keras_sentemb.pretrained.transformer_layer_states import transformer_layer_states
from tests.conftest import ENCODER_HEADS, make_tiny_backbone, make_tiny_encoder

TOKEN_IDS = np.array([[2, 7, 8, 9, 3, 0, 0], [2, 10, 3, 0, 0, 0, 0], [2, 7, 7, 8, 9, 10, 3]], "int32")
PADDING_MASK = (TOKEN_IDS != 0).astype("int32")


def keras_states(backbone):
    inputs = {"token_ids": TOKEN_IDS, "segment_ids": np.zeros_like(TOKEN_IDS), "padding_mask": PADDING_MASK}
    return transformer_layer_states(backbone)(inputs)


def test_every_block_output_equals_the_keras_layers_on_real_tokens():
    backbone = make_tiny_backbone(seed=3)
    ours = bert_layer_states(backbone, TOKEN_IDS, PADDING_MASK)
    assert len(ours) == backbone.num_layers
    real = PADDING_MASK.astype(bool)  # padded positions are never pooled
    for mine, reference in zip(ours, keras_states(backbone)):
        np.testing.assert_allclose(np.asarray(mine)[real], np.asarray(reference)[real], atol=1e-5)


def test_it_reads_the_weights_when_called_so_lora_adapters_count():
    backbone = make_tiny_backbone(seed=4)
    backbone.enable_lora(2)
    for weight in backbone.trainable_weights:  # non-zero adapters: B·A changes the kernels
        weight.assign(np.full(weight.shape, 0.05, "float32"))
    real = PADDING_MASK.astype(bool)
    np.testing.assert_allclose(
        np.asarray(bert_layer_states(backbone, TOKEN_IDS, PADDING_MASK)[-1])[real],
        np.asarray(keras_states(backbone)[-1])[real],
        atol=1e-5,
    )


@pytest.mark.parametrize("options", list(ENCODER_HEADS.values()), ids=list(ENCODER_HEADS))
def test_the_openvino_graph_of_an_encoder_gives_the_embed_fn_vectors(options):
    encoder = make_tiny_encoder(seed=5, **options)
    assert encoder.openvino_graph_fn() is not encoder.embed_fn()
    np.testing.assert_allclose(
        encoder.openvino_graph_fn()(TOKEN_IDS, PADDING_MASK), encoder.embed_fn()(TOKEN_IDS, PADDING_MASK), atol=1e-5
    )


def test_backbones_it_does_not_cover_convert_the_keras_graph_itself():
    assert supports_bert_layer_states(make_tiny_backbone())
    keras.utils.set_random_seed(0)
    roberta = keras_hub.models.RobertaBackbone(
        vocabulary_size=30, num_layers=1, num_heads=2, hidden_dim=8, intermediate_dim=16, max_sequence_length=16
    )
    assert not supports_bert_layer_states(roberta)
    bf16 = keras_hub.models.BertBackbone.from_config({**make_tiny_backbone().get_config(), "dtype": "mixed_bfloat16"})
    assert not supports_bert_layer_states(bf16)
    encoder = SentenceEncoder(bf16)
    assert encoder.openvino_graph_fn() is encoder.embed_fn()
