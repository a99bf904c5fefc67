"""SemanticHashing: relaxed codes in (0, 1), hard codes independent of τ, packing, serialization."""

import keras
import numpy as np
import pytest

from keras_sentemb.layers import SemanticHashing
from tests.layer_test_case import run_layer_test

X = np.random.default_rng(0).standard_normal((6, 12)).astype(np.float32)


def test_relaxed_codes_are_sigmoids_of_the_layer_normalised_projection_over_tau():
    layer = SemanticHashing(64)
    relaxed = keras.ops.convert_to_numpy(layer(X))
    assert relaxed.shape == (6, 64) and ((relaxed > 0) & (relaxed < 1)).all()
    kernel, bias = (keras.ops.convert_to_numpy(w) for w in layer.projection.weights)
    z = X @ kernel + bias
    z = (z - z.mean(-1, keepdims=True)) / np.sqrt(z.var(-1, keepdims=True) + 1e-5)
    layer.temperature.assign(0.25)
    np.testing.assert_allclose(keras.ops.convert_to_numpy(layer(X)), 1 / (1 + np.exp(-z / 0.25)), atol=1e-5)


def test_hard_codes_threshold_at_one_half_whatever_the_temperature():
    layer = SemanticHashing(64)
    relaxed = keras.ops.convert_to_numpy(layer(X))
    bits = keras.ops.convert_to_numpy(layer.binarize(X))
    np.testing.assert_array_equal(bits, (relaxed > 0.5).astype(np.uint8))
    layer.temperature.assign(0.01)
    np.testing.assert_array_equal(keras.ops.convert_to_numpy(layer.binarize(X)), bits)
    packed = keras.ops.convert_to_numpy(layer.binarize(X, packed=True))
    assert packed.dtype == np.uint8 and packed.shape == (6, 8)
    np.testing.assert_array_equal(packed, np.packbits(bits, axis=1))


def test_temperature_is_a_non_trainable_weight():
    layer = SemanticHashing(64)
    layer.build((None, 12))
    assert [w.name for w in layer.non_trainable_weights] == ["temperature"]
    assert all(w.name != "temperature" for w in layer.trainable_weights)


def test_serialization_round_trip_keeps_config_and_outputs(tmp_path):
    layer = SemanticHashing(128, initial_temperature=0.5, name="codes")
    model = keras.Sequential([keras.Input((12,)), layer])
    model.save(tmp_path / "hashing.keras")
    restored = keras.models.load_model(tmp_path / "hashing.keras")
    assert restored.layers[0].get_config() == layer.get_config()
    np.testing.assert_allclose(restored.predict(X, verbose=0), model.predict(X, verbose=0), atol=1e-6)
    assert float(restored.layers[0].temperature.numpy()) == 0.5


def test_a_training_step_changes_the_projection_but_not_the_temperature():
    model = keras.Sequential([keras.Input((12,)), SemanticHashing(64)])
    model.compile(optimizer="adam", loss="mse")
    before = [w.numpy().copy() for w in model.weights]
    model.fit(X, np.ones((6, 64), np.float32), epochs=1, verbose=0)
    changed = {w.name: not np.array_equal(w.numpy(), b) for w, b in zip(model.weights, before)}
    assert changed["kernel"] and not changed["temperature"]


@pytest.mark.parametrize("bits", [32, 60, 8192, 64.0])
def test_code_lengths_outside_64_to_4096_or_not_whole_bytes_are_rejected(bits):
    with pytest.raises(ValueError, match="bits must be"):
        SemanticHashing(bits)


def test_straight_through_gives_hard_codes_forward_and_the_sigmoid_gradient_backward():
    import tensorflow as tf

    relaxed_layer = SemanticHashing(64, name="relaxed")
    relaxed_layer.build((None, 12))
    hard_layer = SemanticHashing(64, straight_through=True, name="hard")
    hard_layer.build((None, 12))
    hard_layer.set_weights(relaxed_layer.get_weights())
    x = tf.constant(X)
    grads = []
    for layer in (relaxed_layer, hard_layer):
        with tf.GradientTape() as tape:
            out = layer(x)
            loss = tf.reduce_sum(out * tf.range(64, dtype=tf.float32))
        grads.append(tape.gradient(loss, layer.projection.kernel).numpy())
    np.testing.assert_array_equal(
        keras.ops.convert_to_numpy(hard_layer(X)),
        keras.ops.convert_to_numpy(relaxed_layer.binarize(X)).astype("float32"),
    )
    np.testing.assert_allclose(grads[1], grads[0], rtol=1e-5, atol=1e-7)
    assert hard_layer.get_config()["straight_through"] is True


def test_passes_the_shared_layer_checks(tmp_path):
    run_layer_test(SemanticHashing, {"bits": 64}, X, (6, 64), tmp_path)
