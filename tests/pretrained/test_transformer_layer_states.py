"""transformer_layer_states: one model whose outputs are every transformer block's token
states, first to last, sharing the backbone's weights."""

import numpy as np
import pytest

from keras_sentemb.pretrained.transformer_layer_states import transformer_layer_states
from tests.conftest import make_tiny_backbone


def test_it_outputs_each_layer_and_the_last_equals_the_sequence_output():
    backbone = make_tiny_backbone()
    inputs = {
        "token_ids": np.array([[2, 7, 8, 3, 0]]),
        "segment_ids": np.zeros((1, 5), "int32"),
        "padding_mask": np.array([[1, 1, 1, 1, 0]]),
    }
    states = transformer_layer_states(backbone)(inputs)
    assert len(states) == backbone.num_layers == 2
    assert all(tuple(s.shape) == (1, 5, 16) for s in states)
    np.testing.assert_allclose(states[-1], backbone(inputs)["sequence_output"], atol=1e-6)
    assert not np.allclose(states[0], states[1])


def test_it_shares_the_backbone_weights():
    backbone = make_tiny_backbone()
    model = transformer_layer_states(backbone)
    assert {id(w) for w in model.weights} <= {id(w) for w in backbone.weights}


def test_a_backbone_without_numbered_blocks_is_refused():
    import keras

    inputs = keras.Input((4,))
    with pytest.raises(ValueError, match="transformer_layer_<i>"):
        transformer_layer_states(keras.Model(inputs, keras.layers.Dense(2)(inputs)))
