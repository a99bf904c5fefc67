"""ModernBertBackbone and ModernBertLayer: Hugging Face ModernBERT's computation, local attention by blocks."""

import keras
import numpy as np
import pytest
import tensorflow as tf

from keras_sentemb.backbones import ModernBertBackbone
from keras_sentemb.families.token_layouts import attention
from tests.layer_test_case import run_model_test

TOKENS = {
    "token_ids": np.array([[1, 7, 9, 12, 2, 0, 0], [1, 5, 2, 0, 0, 0, 0]], dtype="int32"),
    "padding_mask": np.array([[1, 1, 1, 1, 1, 0, 0], [1, 1, 1, 0, 0, 0, 0]], dtype="int32"),
}


def tiny_modernbert(**overrides):
    keras.utils.set_random_seed(0)
    config = dict(vocabulary_size=20, num_layers=3, num_heads=2, hidden_dim=8, intermediate_dim=12, window=2)
    config.update(overrides)
    return ModernBertBackbone(**config)


def masked_local_attention(query, key, value, padding_mask, window):
    """The definition, in NumPy: softmax over the real keys j with |i − j| ≤ window, T×T scores."""
    scores = np.einsum("bqhd,bkhd->bhqk", query, key) / np.sqrt(query.shape[-1])
    positions = np.arange(query.shape[1])
    allowed = (np.abs(positions[:, None] - positions[None, :]) <= window)[None, None] & padding_mask[
        :, None, None, :
    ].astype(bool)
    scores = np.where(allowed, scores, -np.inf)
    with np.errstate(invalid="ignore"):  # a padding query with no real key in reach: NaN, never compared
        weights = np.exp(scores - scores.max(-1, keepdims=True))
        weights /= weights.sum(-1, keepdims=True)
    return np.einsum("bhqk,bkhd->bqhd", weights, value)


def local_attention(query, key, value, padding_mask, window=4):
    """What a local ModernBERT layer (its call and every runtime's graph) attends with: [batch, T, heads, D]."""
    attended = attention(query, key, value, padding_mask, visible=(window, window), in_blocks=True)
    return tf.reshape(attended, tf.shape(query))


@pytest.mark.parametrize("length", [1, 3, 4, 5, 9, 12, 23])
def test_local_attention_by_blocks_is_the_masked_softmax_on_every_real_token(length):
    """Lengths under, at, between and over multiples of the window (4); the second text padded."""
    rng = np.random.default_rng(length)
    query, key, value = (rng.normal(size=(2, length, 2, 4)).astype("float32") for _ in range(3))
    padding_mask = np.ones((2, length), "int32")
    padding_mask[1, (length + 1) // 2 :] = 0
    ours = np.asarray(local_attention(query, key, value, padding_mask))
    expected = masked_local_attention(query, key, value, padding_mask, window=4)
    real = padding_mask.astype(bool)
    np.testing.assert_allclose(ours[real], expected[real], atol=2e-6)


def test_local_attention_traces_for_any_batch_and_length():
    """One graph with unknown batch and length, as `encode` and the SavedModel trace it."""
    spec = tf.TensorSpec((None, None, 2, 4), tf.float32)
    traced = tf.function(
        lambda query, key, value, mask: local_attention(query, key, value, mask)
    ).get_concrete_function(spec, spec, spec, tf.TensorSpec((None, None), tf.int32))
    rng = np.random.default_rng(0)
    for batch, length in ((1, 2), (3, 11), (2, 40)):
        query, key, value = (rng.normal(size=(batch, length, 2, 4)).astype("float32") for _ in range(3))
        mask = np.ones((batch, length), "int32")
        np.testing.assert_allclose(
            traced(query, key, value, mask), masked_local_attention(query, key, value, mask, 4), atol=2e-6
        )


def test_passes_the_shared_model_checks(tmp_path):
    run_model_test(tiny_modernbert(), TOKENS, (2, 7, 8), tmp_path)


def test_every_third_layer_is_global_unless_the_config_lists_the_kinds():
    assert [layer.window for layer in tiny_modernbert().transformer_layers] == [None, 2, 2]
    listed = tiny_modernbert(layer_types=["sliding_attention", "full_attention", "sliding_attention"])
    assert [layer.window for layer in listed.transformer_layers] == [2, None, 2]


def test_padding_never_changes_the_real_tokens_states():
    backbone = tiny_modernbert()
    short = {k: v[:1, :5] for k, v in TOKENS.items()}
    np.testing.assert_allclose(backbone(short), backbone(TOKENS)[:1, :5], atol=1e-5)


def test_an_unknown_layer_kind_is_refused_by_name():
    with pytest.raises(ValueError, match="layer_types must name full_attention or sliding_attention"):
        tiny_modernbert(layer_types=["full_attention", "chunked_attention", "sliding_attention"])
