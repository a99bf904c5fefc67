"""PairFeatureHead: feature order, hidden layers, serialization, argument checks."""

import keras
import numpy as np
import pytest

from keras_sentemb.layers import PairFeatureHead
from tests.layer_test_case import run_layer_test

U = np.array([[1.0, -2.0]], "float32")
V = np.array([[3.0, 4.0]], "float32")


def test_concatenates_the_chosen_features_in_order():
    head = PairFeatureHead(2, features=("abs_diff", "product", "u", "v"))
    np.testing.assert_allclose(head.pair_features(U, V), [[2, 6, 3, -8, 1, -2, 3, 4]])


def test_logits_are_a_dense_layer_on_the_default_features():
    head = PairFeatureHead(3)
    logits = np.asarray(head([U, V]))
    kernel, bias = (np.asarray(w) for w in head.output_layer.weights)
    np.testing.assert_allclose(logits, np.array([[1, -2, 3, 4, 2, 6]]) @ kernel + bias, rtol=1e-5)
    assert head.compute_output_shape([(None, 2), (None, 2)]) == (None, 3)


def test_hidden_layers_change_the_weight_count():
    head = PairFeatureHead(3, ("u", "v", "abs_diff", "product"), hidden_units=(16, 8))
    head([U, V])
    assert [tuple(w.shape) for w in head.trainable_weights] == [(8, 16), (16,), (16, 8), (8,), (8, 3), (3,)]


def test_config_round_trip():
    head = PairFeatureHead(2, ("u", "product"), hidden_units=(4,), dropout=0.1)
    clone = keras.saving.deserialize_keras_object(keras.saving.serialize_keras_object(head))
    assert isinstance(clone, PairFeatureHead) and clone.get_config() == head.get_config()


@pytest.mark.parametrize("kwargs", [{"features": ()}, {"features": ("u", "w")}, {"features": ("u", "u")}, {"units": 0}])
def test_rejects_bad_arguments(kwargs):
    with pytest.raises(ValueError):
        PairFeatureHead(**{"units": 2, **kwargs})


def test_passes_the_shared_layer_checks(tmp_path):
    u, v = np.random.default_rng(0).normal(size=(2, 4, 2)).astype("float32")
    run_layer_test(PairFeatureHead, {"units": 3, "hidden_units": (5,)}, [u, v], (4, 3), tmp_path)
