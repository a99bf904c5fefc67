"""A window attended in blocks (`token_layouts.attention_in_windows`, ModernBERT's local layers in every
runtime) is the one masked softmax over |i − j| ≤ window at every real query: any length (shorter than the
window, a multiple of it or not), padding in the batch, grouped key/value heads; and `in_blocks` refuses what
it does not compute."""

import numpy as np
import pytest
import tensorflow as tf

from keras_sentemb.families.token_layouts import attention


@pytest.mark.parametrize("length", [1, 3, 8, 13, 40])
@pytest.mark.parametrize("window", [1, 4, 64])
def test_blocks_give_the_masked_softmax_at_every_real_query(length, window):
    query = tf.random.stateless_normal([2, length, 4, 8], seed=[length, window])
    key, value = (tf.random.stateless_normal([2, length, 2, 8], seed=[length, window + i]) for i in (1, 2))
    mask = np.ones((2, length), "int32")
    mask[1, (length + 1) // 2 :] = 0  # the second text ends half-way: its padding is no key
    options = dict(key_mask=tf.constant(mask), visible=(window, window), scale=0.3)
    in_blocks = attention(query, key, value, in_blocks=True, **options).numpy()
    one_softmax = attention(query, key, value, **options).numpy()
    real = mask.astype(bool)
    np.testing.assert_allclose(in_blocks[real], one_softmax[real], atol=1e-5)


@pytest.mark.parametrize(
    "options", [dict(visible=(2, 0)), dict(visible=(None, None)), dict(visible=(2, 2), soft_cap=50.0), {}]
)
def test_in_blocks_refuses_what_is_not_a_plain_window(options):
    x = tf.zeros([1, 4, 2, 8])
    with pytest.raises(ValueError, match="in_blocks computes a window"):
        attention(x, x, x, in_blocks=True, **options)
