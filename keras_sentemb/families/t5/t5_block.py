"""The T5 encoder block, written once: the Keras layer (`T5EncoderLayer.call`, training and `encode` on
TensorFlow) and every runtime's inference math (`inference.py`) call `t5_block`.

    N(x)  = x / sqrt(mean(x²) + ε) · γ                                     T5's norm: no mean, no bias
    x'    = N₁(x)
    A     = softmax(Q·Kᵀ + bias(i − j) + M)·V,  Q, K, V = x'·W_q, x'·W_k, x'·W_v   no 1/√d scaling, no biases
    x     = x + A·W_o
    x     = x + W_o′(act(N₂(x)·W_i))                       ("relu": sentence-t5, T5 v1.0)
       or   x + W_o′(act(N₂(x)·W_i0) ⊙ N₂(x)·W_i1)         ("gated-gelu": GTR, T5 v1.1)

bias: `relative_position_bias.RelativePositionBias`, the first block's table shared by every block (as T5 and
MPNet share it). The layout of the tokens (`token_layouts`: a padded batch, texts one after another, one text)
is the argument: it is the only thing the Keras layer and the runtimes do differently.

>>> import numpy as np
>>> import tensorflow as tf
>>> from keras_sentemb.families.t5.t5_encoder_layer import T5EncoderLayer
>>> from keras_sentemb.families.token_layouts import OneText
>>> layer = T5EncoderLayer(num_heads=2, key_value_dim=4, intermediate_dim=8)
>>> x = np.random.default_rng(0).normal(size=(1, 3, 6)).astype("float32")
>>> bias = np.zeros((1, 2, 3, 3), "float32")
>>> keras_out = layer(x, position_bias=bias, padding_mask=np.ones((1, 3), "int32"))
>>> alone = t5_block(layer, tf.constant(x[0]), OneText(tf.constant([5, 6, 7])), lambda length: bias)
>>> bool(np.allclose(keras_out[0], alone, atol=1e-6))
True
"""

from keras_sentemb.families.inference_ops import dense, rms_norm, split_heads


def t5_norm(layer, x):
    """T5's norm of a Keras `RMSNormalization` layer: x / sqrt(mean(x²) + ε) · γ."""
    return rms_norm(x, layer.epsilon, layer.scale)


def _no_dropout(x):
    return x


def t5_block(layer, x, tokens, bias, dropout=_no_dropout):
    """A `T5EncoderLayer`'s output for states x [..., d_model] laid out as `tokens` says; `bias`: length →
    the additive relative position bias [1, heads, length, length]; `dropout`: applied to each residual
    branch (the Keras layer's, in training)."""
    normed = t5_norm(layer.attention_norm, x)
    query, key, value = (
        split_heads(dense(projection, normed), layer.num_heads) for projection in (layer.query, layer.key, layer.value)
    )
    context = tokens.attend(query, key, value, bias=bias, scale=1.0)
    x = x + dropout(dense(layer.attention_output, context))
    normed = t5_norm(layer.feedforward_norm, x)
    hidden = layer.activation(dense(layer.feedforward_intermediate_dense, normed))
    if layer.gated:
        hidden = hidden * dense(layer.feedforward_gate_dense, normed)
    return x + dropout(dense(layer.feedforward_output_dense, hidden))
