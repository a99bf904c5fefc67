"""SpladePooling: log(1 + relu(logits)) pooled over real tokens, in chunks of positions that change nothing."""

import keras
import numpy as np
import pytest
import tensorflow as tf

from keras_sentemb.layers.splade_pooling import (
    SpladePooling,
    splade_term_weights,
    splade_weights,
    splade_weights_of_flat_tokens,
)


def reference(logits, mask, pooling, activation):
    weights = np.log1p(np.maximum(logits, 0.0))
    if activation == "log1p_relu":
        weights = np.log1p(weights)
    weights = weights * mask[..., None]
    return weights.max(axis=1) if pooling == "max" else weights.sum(axis=1)


@pytest.mark.parametrize("pooling", ["max", "sum"])
@pytest.mark.parametrize("activation", ["relu", "log1p_relu"])
@pytest.mark.parametrize("chunk_tokens", [1, 3, 16])
def test_the_formula_whatever_the_chunk(pooling, activation, chunk_tokens):
    rng = np.random.default_rng(0)
    states = rng.standard_normal((3, 7, 5)).astype("float32")
    mask = np.array([[1] * 7, [1] * 4 + [0] * 3, [1] + [0] * 6], "int32")
    head = keras.layers.Dense(11, use_bias=False)
    pool = SpladePooling(head, pooling=pooling, activation=activation, chunk_tokens=chunk_tokens)
    out = pool(states, padding_mask=mask).numpy()
    logits = states @ head.kernel.numpy()
    np.testing.assert_allclose(out, reference(logits, mask, pooling, activation), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        ({"pooling": "mean"}, "pooling 'mean'"),
        ({"activation": "gelu"}, "activation 'gelu'"),
        ({"chunk_tokens": 0}, "chunk_tokens must be a positive int"),
    ],
)
def test_unknown_settings_are_refused(arguments, message):
    with pytest.raises(ValueError, match=message):
        SpladePooling(keras.layers.Dense(2), **arguments)


@pytest.mark.parametrize("activation", ["relu", "log1p_relu"])
def test_max_pooling_the_logits_before_the_monotone_activation_changes_nothing_but_round_off(activation):
    # the activation is applied to [batch, vocabulary] after the max (cheaper than to every token's logits)
    rng = np.random.default_rng(1)
    logits = rng.standard_normal((3, 6, 9)).astype("float32")
    logits[1] = -np.abs(logits[1])  # a text with no positive logit
    logits[2, 3:] = 50.0  # large logits on padding positions: masked, they count for nothing
    mask = np.array([[1] * 6, [1] * 6, [1] * 3 + [0] * 3], "int32")
    logits = tf.constant(logits)
    with tf.GradientTape(persistent=True) as tape:
        tape.watch(logits)
        ours = splade_weights(logits, mask, "max", activation)
        per_token = splade_term_weights(logits, activation) * tf.cast(mask, tf.float32)[..., None]
        theirs = tf.reduce_max(per_token, axis=1)
    np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=1e-6, atol=0)  # the vectorised log1p: 1 ulp
    np.testing.assert_array_equal(ours.numpy() > 0, theirs.numpy() > 0)
    np.testing.assert_allclose(tape.gradient(ours, logits).numpy(), tape.gradient(theirs, logits).numpy(), atol=1e-6)


@pytest.mark.parametrize("pooling", ["max", "sum"])
def test_the_unpadded_layout_pools_each_text_as_the_padded_one(pooling):
    rng = np.random.default_rng(2)
    lengths = [5, 1, 3]
    states = rng.standard_normal((sum(lengths), 4)).astype("float32")
    owner = np.repeat(np.arange(3), lengths).astype("int32")
    head = keras.layers.Dense(8, use_bias=False)
    head.build((None, 4))
    flat = splade_weights_of_flat_tokens(head, tf.constant(states), tf.constant(owner), 3, 8, pooling, chunk_tokens=2)
    logits = states @ head.kernel.numpy()
    for text in range(3):
        rows = logits[owner == text][None]
        expected = reference(rows, np.ones(rows.shape[:2], "float32"), pooling, "relu")[0]
        np.testing.assert_allclose(flat.numpy()[text], expected, rtol=1e-6, atol=1e-7)
