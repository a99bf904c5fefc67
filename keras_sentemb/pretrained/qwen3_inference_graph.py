"""A keras-hub Qwen3 backbone's forward pass in the op shapes OpenVINO fuses (as `bert_inference_graph` is
for BERT).

keras-hub's `Qwen3Attention` traces to TensorFlow ops that OpenVINO converts one by one: the scores by
einsum over [batch, T, heads, D] layouts with transposes around them, a [batch, T, T] causal mask rebuilt
and merged with the padding mask in every layer, Keras' masked softmax (an additive mask before it and a
multiplication after it), and rotary positions through stack/reshape. OpenVINO's CPU plugin does not
recognise that block as attention, so it keeps each layer's [batch, heads, T, T] scores, softmax and
masks as tensors of their own: at 512-token passages that, not the matrix products, is what the time
goes to. `qwen3_layer_states` is the same math written the way exported decoder graphs are:

    RMS(x)     = x / sqrt(mean(x²) + ε) · γ                                    (→ RMS)
    Q          = RoPE(RMS_q(x·W_q)),  K = RoPE(RMS_k(x·W_k)),  V = x·W_v       [B, H, T, D], [B, G, T, D]
    RoPE(u)    = u·cos(pθ) + rotate_half(u)·sin(pθ),  θ_i = wavelength^(−2i/D),  p = 0 … T−1
    attention  = softmax(Q·Kᵀ / √D + causal_and_padding) · V                   (→ fused MHA)
    x          = x + attention·W_o;   x = x + W_down(silu(x'·W_gate) ⊙ x'·W_up), x' = RMS(x)

with the G key/value heads repeated to the H query heads (grouped-query attention) and one additive mask
[B, 1, T, T] (0 where the key is a real token at or before the query, −10⁹ elsewhere) shared by every
layer. The weights are the backbone's own, read at call time. It is used for the OpenVINO conversion only
(`SentenceEncoder.openvino_graph_fn`); the states equal the Keras model's at every real token to float32
round-off (tests/pretrained/test_qwen3_inference_graph.py). A query row with no real key before it (left
padding) differs from Keras' (uniform instead of zero attention): such rows are padding, masked out of
every real token's attention and of pooling.

Example:
>>> from keras_sentemb.backbones import HuggingFaceQwen3Backbone
>>> backbone = HuggingFaceQwen3Backbone(vocabulary_size=20, num_layers=1, num_query_heads=2,
...     num_key_value_heads=1, head_dim=4, hidden_dim=8, intermediate_dim=16)
>>> ids, mask = tf.constant([[0, 5, 2, 7]]), tf.constant([[0, 1, 1, 1]])
>>> states = qwen3_layer_states(backbone, ids, mask)
>>> keras_states = backbone({"token_ids": ids, "padding_mask": mask})
>>> float(tf.reduce_max(tf.abs(states[-1] - keras_states)[:, 1:])) < 1e-5
True
"""

import keras_hub
import tensorflow as tf
from keras_hub.src.models.qwen3.qwen3_attention import Qwen3Attention
from keras_hub.src.models.qwen3.qwen3_decoder import Qwen3TransformerDecoder
from keras_hub.src.models.qwen3.qwen3_layernorm import Qwen3LayerNorm

from keras_sentemb.pretrained.bert_inference_graph import attention_projections, float32_and_unquantised, token_rows

_MASKED = -1e9  # exp(−10⁹ + s) is exactly 0 in float32


def supports_qwen3_layer_states(backbone):
    """Whether `qwen3_layer_states` computes this backbone: a keras-hub `Qwen3Backbone` in float32 whose
    blocks are keras-hub's own decoder layers, without sliding windows, YaRN scaling or quantised
    weights."""
    if not isinstance(backbone, keras_hub.models.Qwen3Backbone):
        return False
    dense_layers = []
    for block in backbone.transformer_layers:
        if type(block) is not Qwen3TransformerDecoder:
            return False
        attention = block._self_attention_layer
        if type(attention) is not Qwen3Attention or attention.sliding_window_size:
            return False
        if attention.rotary_embedding_layer.rope_type == "yarn":
            return False
        if getattr(block.activation, "__name__", None) != "silu":
            return False
        dense_layers += [
            *attention_projections(attention),
            block._feedforward_gate_dense,
            block._feedforward_intermediate_dense,
            block._feedforward_output_dense,
        ]
    return float32_and_unquantised(backbone, dense_layers)


def rms_norm(layer, x):
    """A `Qwen3LayerNorm`'s output over the last axis: x / sqrt(mean(x²) + ε) · γ."""
    if not isinstance(layer, Qwen3LayerNorm):
        raise TypeError(f"rms_norm computes a Qwen3LayerNorm, not {type(layer).__name__}")
    variance = tf.reduce_mean(x * x, axis=[-1], keepdims=True)
    return x * tf.math.rsqrt(variance + layer.epsilon) * layer.scale


def _projection(dense, x):
    """x·W of an `EinsumDense` "bqm,muh->bquh" [hidden, heads, D], as [batch, T, heads, D]."""
    kernel = tf.convert_to_tensor(dense.kernel)
    hidden, heads, size = kernel.shape
    y = tf.matmul(x, tf.reshape(kernel, [hidden, heads * size]))
    return tf.reshape(y, tf.concat([tf.shape(x)[:2], [heads, size]], 0))


def _rotate(u, cos, sin):
    """RoPE on [batch, heads, T, D]: u·cos + rotate_half(u)·sin, rotate_half(u) = [−u₂, u₁]."""
    first, second = tf.split(u, 2, axis=-1)
    return u * cos + tf.concat([-second, first], axis=-1) * sin


def _rotary_tables(attention, length):
    """cos and sin of p·θ for p = 0 … length−1, each [1, 1, length, D] (θ repeated over the two halves)."""
    inverse_frequency = tf.convert_to_tensor(attention.rotary_embedding_layer._get_inverse_freq(attention.head_dim))
    positions = tf.cast(tf.range(length), tf.float32)
    angles = positions[:, None] * inverse_frequency[None, :]
    angles = tf.concat([angles, angles], axis=-1)[None, None]
    return tf.cos(angles), tf.sin(angles)


def _attention(attention, x, additive_mask, cos, sin, queries=None):
    """Self-attention of `x` [B, T, hidden] (its RMS-normed input); `queries` = (rows [B, T', hidden],
    their mask rows [B, 1, T', T], cos, sin) computes only those rows' outputs, against every key."""
    batch, length = tf.shape(x)[0], tf.shape(x)[1]
    query_x, query_mask, query_cos, query_sin = queries if queries is not None else (x, additive_mask, cos, sin)
    query = rms_norm(attention._query_dense_layer_norm, _projection(attention._query_dense, query_x))
    key = rms_norm(attention._key_dense_layer_norm, _projection(attention._key_dense, x))
    value = _projection(attention._value_dense, x)
    query, key, value = (tf.transpose(t, [0, 2, 1, 3]) for t in (query, key, value))  # [B, heads, T, D]
    query, key = _rotate(query, query_cos, query_sin), _rotate(key, cos, sin)
    groups = attention.num_key_value_groups
    if groups > 1:  # key/value head g serves query heads g·groups … g·groups + groups − 1
        heads, size = attention.num_key_value_heads, attention.head_dim
        shape = tf.stack([batch, heads * groups, length, size])
        key = tf.reshape(tf.broadcast_to(key[:, :, None], [batch, heads, groups, length, size]), shape)
        value = tf.reshape(tf.broadcast_to(value[:, :, None], [batch, heads, groups, length, size]), shape)
    scores = tf.matmul(query, key, transpose_b=True) * attention._inv_norm_factor + query_mask
    context = tf.matmul(tf.nn.softmax(scores, axis=-1), value)  # [B, H, T', D]
    kernel = tf.convert_to_tensor(attention._output_dense.kernel)  # [H, D, hidden]
    heads, size, hidden = kernel.shape
    context = tf.reshape(tf.transpose(context, [0, 2, 1, 3]), tf.stack([batch, -1, heads * size]))
    return tf.matmul(context, tf.reshape(kernel, [heads * size, hidden]))


def _feedforward(block, x):
    """x + W_down(silu(x'·W_gate) ⊙ x'·W_up), x' = RMS(x)."""
    normed = rms_norm(block._feedforward_layernorm, x)
    gate = tf.nn.silu(block._feedforward_gate_dense(normed))
    return x + block._feedforward_output_dense(block._feedforward_intermediate_dense(normed) * gate)


def last_real_positions(padding_mask):
    """[B] int32: each row's last position whose mask is 1 (left and right padding alike; 0 if none)."""
    length = tf.shape(padding_mask)[1]
    numbered = tf.cast(padding_mask, tf.int32) * (tf.range(length) + 1)[None]
    return tf.maximum(tf.reduce_max(numbered, axis=1) - 1, 0)


def causal_padding_mask(padding_mask):
    """[B, 1, T, T]: 0 where key j is a real token and j ≤ query i, −10⁹ elsewhere."""
    length = tf.shape(padding_mask)[1]
    causal = tf.linalg.band_part(tf.ones(tf.stack([length, length])), -1, 0)  # 1 where j ≤ i
    keep = causal[None, None] * tf.cast(padding_mask, tf.float32)[:, None, None, :]
    return (1.0 - keep) * _MASKED


def qwen3_layer_states(backbone, token_ids, padding_mask, token_table=None, last_token_only=False):
    """Every decoder block's output [B, T, hidden] (first to last, the last one through the final
    RMSNorm as the backbone's output is) of a Qwen3 backbone for int32 `token_ids` and `padding_mask`
    [B, T], at inference. The backbone must pass `supports_qwen3_layer_states`; `token_table` replaces
    the token embedding table as in `bert_layer_states`.

    `last_token_only`: for last-token pooling, which reads the last block at each row's last real token
    only (`last_real_positions`), the last block computes that token alone (its attention against every
    key, its feed-forward on one row): the last state is [B, 1, hidden], pooled with a mask of ones. A
    block is 1/L of the model (Qwen3-Embedding-0.6B: 28)."""
    token_ids = tf.convert_to_tensor(token_ids, tf.int32)
    x = token_rows(backbone.token_embedding, token_table, token_ids)
    additive_mask = causal_padding_mask(padding_mask)
    cos, sin = _rotary_tables(backbone.transformer_layers[0]._self_attention_layer, tf.shape(token_ids)[1])
    blocks = backbone.transformer_layers
    states = []
    for index, block in enumerate(blocks):
        normed = rms_norm(block._self_attention_layernorm, x)
        queries = None
        if last_token_only and index == len(blocks) - 1:
            last = last_real_positions(padding_mask)
            x = tf.gather(x, last[:, None], batch_dims=1)  # [B, 1, hidden]
            queries = (
                tf.gather(normed, last[:, None], batch_dims=1),
                tf.gather(additive_mask, last[:, None], axis=2, batch_dims=1),  # [B, 1, 1, T]
                tf.gather(cos[0, 0], last)[:, None, None],  # [B, 1, 1, D]
                tf.gather(sin[0, 0], last)[:, None, None],
            )
        x = _feedforward(block, x + _attention(block._self_attention_layer, normed, additive_mask, cos, sin, queries))
        states.append(x)
    states[-1] = rms_norm(backbone.layer_norm, states[-1])
    return states
