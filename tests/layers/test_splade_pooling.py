"""SpladePooling: log(1 + relu(logits)) pooled over real tokens, in chunks of positions that change nothing."""

import keras
import numpy as np
import pytest

from keras_sentemb.layers.splade_pooling import SpladePooling


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
