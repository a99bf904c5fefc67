"""HuggingFaceBertBackbone: keras-hub's BERT computing the activation its Hugging Face config names."""

import keras
import numpy as np
import pytest

from keras_sentemb.backbones import HuggingFaceBertBackbone

TOKENS = {
    "token_ids": np.array([[2, 5, 6, 3, 0]], "int32"),
    "segment_ids": np.zeros((1, 5), "int32"),
    "padding_mask": np.array([[1, 1, 1, 1, 0]], "int32"),
}


def tiny_bert(**overrides):
    keras.utils.set_random_seed(0)
    config = dict(vocabulary_size=20, num_layers=1, num_heads=2, hidden_dim=8, intermediate_dim=16)
    return HuggingFaceBertBackbone(max_sequence_length=12, **config, **overrides)


def test_gelu_is_the_exact_one_and_gelu_new_the_tanh_approximation():
    exact, approximate = tiny_bert(), tiny_bert(hidden_act="gelu_new")
    approximate.set_weights(exact.get_weights())
    assert exact.transformer_layers[0]._feedforward_intermediate_dense.activation is keras.activations.gelu
    gap = np.abs(exact(TOKENS)["sequence_output"] - approximate(TOKENS)["sequence_output"]).max()
    assert 0 < gap < 1e-2


def test_the_activation_survives_a_config_round_trip():
    backbone = tiny_bert(hidden_act="relu")
    clone = HuggingFaceBertBackbone.from_config(backbone.get_config())
    assert clone.hidden_act == "relu"
    assert clone.transformer_layers[0]._feedforward_intermediate_dense.activation is keras.activations.relu


def test_use_hidden_act_switches_every_block():
    backbone = tiny_bert()
    before = np.asarray(backbone(TOKENS)["sequence_output"])
    backbone.use_hidden_act("gelu_pytorch_tanh")
    assert backbone.get_config()["hidden_act"] == "gelu_pytorch_tanh"
    assert not np.array_equal(np.asarray(backbone(TOKENS)["sequence_output"]), before)


def test_an_activation_we_do_not_compute_is_refused():
    with pytest.raises(ValueError, match="hidden_act 'gelu_fast' is not supported"):
        tiny_bert(hidden_act="gelu_fast")
