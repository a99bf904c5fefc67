"""GatedConvFusion: the InferLite formula, masking, order invariance at filter 1, gates, config."""

import keras
import numpy as np
import pytest

from keras_sentemb.layers import GatedConvFusion
from tests.layer_test_case import run_layer_test

RNG = np.random.default_rng(0)
GLOVE = RNG.normal(size=(2, 5, 6)).astype("float32")
OTHER = RNG.normal(size=(2, 5, 4)).astype("float32")
MASK = np.array([[1, 1, 1, 0, 0], [1, 1, 1, 1, 1]], "int32")


def relu(x):
    return np.maximum(x, 0)


def sigmoid(x):
    return 1 / (1 + np.exp(-x))


def dense(layer, x):
    kernel, bias = (np.asarray(w) for w in layer.weights)
    return x @ kernel.reshape(-1, kernel.shape[-1]) + bias


def test_filter_length_one_matches_the_numpy_formula():
    fusion = GatedConvFusion(units=8, output_units=3, num_layers=2)
    out = np.asarray(fusion([GLOVE, OTHER], padding_mask=MASK))
    control = relu(dense(fusion.controller, np.concatenate([GLOVE, OTHER], -1)))
    total = control.copy()
    for embeddings, encoder, gates in zip([GLOVE, OTHER], fusion.encoders, fusion.gate_heads):
        h = np.tanh(dense(encoder[1], relu(dense(encoder[0], embeddings))))
        g = sigmoid(dense(gates[1], relu(dense(gates[0], control))))
        total += h * g
    fused = relu(dense(fusion.fusion, total))
    expected = np.stack([fused[0, :3].max(0), fused[1].max(0)])
    np.testing.assert_allclose(out, expected, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("filter_length", [1, 3])
def test_padding_never_changes_the_sentence_vector(filter_length):
    fusion = GatedConvFusion(units=8, num_layers=3, filter_length=filter_length)
    short = np.asarray(fusion([GLOVE[:1, :3], OTHER[:1, :3]], padding_mask=MASK[:1, :3]))
    noise = [x.copy() for x in (GLOVE[:1], OTHER[:1])]
    for x in noise:
        x[:, 3:] = 100.0  # whatever sits in padded positions
    padded = np.asarray(fusion(noise, padding_mask=MASK[:1]))
    np.testing.assert_allclose(padded, short, rtol=1e-5, atol=1e-6)


def test_filter_length_one_ignores_word_order_and_three_does_not():
    order = [4, 2, 0, 3, 1]
    bag = GatedConvFusion(units=8, filter_length=1)
    np.testing.assert_allclose(
        np.asarray(bag([GLOVE[:, order], OTHER[:, order]])), np.asarray(bag([GLOVE, OTHER])), rtol=1e-5, atol=1e-6
    )
    context = GatedConvFusion(units=8, filter_length=3)
    assert not np.allclose(np.asarray(context([GLOVE[:, order], OTHER[:, order]])), np.asarray(context([GLOVE, OTHER])))


def test_gates_lie_strictly_between_zero_and_one():
    fusion = GatedConvFusion(units=8, num_layers=2)
    _, gates = fusion.token_states([GLOVE, OTHER])
    assert len(gates) == 2
    for gate in gates:
        gate = np.asarray(gate)
        assert gate.shape == (2, 5, 8) and (gate > 0).all() and (gate < 1).all()


def test_a_row_without_tokens_pools_to_zeros():
    fusion = GatedConvFusion(units=4)
    out = np.asarray(fusion([GLOVE, OTHER], padding_mask=np.zeros((2, 5), "int32")))
    np.testing.assert_array_equal(out, np.zeros((2, 4)))


def test_config_round_trip_and_output_shape():
    fusion = GatedConvFusion(units=8, output_units=5, num_layers=3, filter_length=3)
    fusion([GLOVE, OTHER])
    clone = keras.saving.deserialize_keras_object(keras.saving.serialize_keras_object(fusion))
    assert isinstance(clone, GatedConvFusion) and clone.get_config() == fusion.get_config()
    clone([GLOVE, OTHER])
    clone.set_weights(fusion.get_weights())
    np.testing.assert_allclose(np.asarray(clone([GLOVE, OTHER])), np.asarray(fusion([GLOVE, OTHER])))
    assert fusion.compute_output_shape([(None, 5, 6), (None, 5, 4)]) == (None, 5)


@pytest.mark.parametrize(
    "kwargs",
    [{"units": 0}, {"units": 4, "num_layers": 0}, {"units": 4, "filter_length": 2}, {"units": 4, "output_units": 0}],
)
def test_rejects_bad_arguments(kwargs):
    with pytest.raises(ValueError):
        GatedConvFusion(**kwargs)


def test_rejects_a_single_tensor_instead_of_a_list():
    with pytest.raises(ValueError, match="list of K"):
        GatedConvFusion(units=4)(GLOVE)


def test_passes_the_shared_layer_checks(tmp_path):
    run_layer_test(
        GatedConvFusion,
        {"units": 8, "output_units": 3, "num_layers": 2, "filter_length": 3},
        [GLOVE, OTHER],
        (2, 3),
        tmp_path,
        call_kwargs={"padding_mask": MASK},
    )
