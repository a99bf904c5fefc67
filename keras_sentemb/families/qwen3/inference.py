"""Qwen3's inference math, once for every runtime (keras-hub's `Qwen3Backbone`, through `keras_hub_adapter`):

    RMS(x)  = x / sqrt(mean(x²) + ε) · γ
    Q = RoPE(RMS_q(x'·W_q)),  K = RoPE(RMS_k(x'·W_k)),  V = x'·W_v,    x' = RMS(x)      per head
    x = x + attend(Q, K, V; causal)·W_o;   x = x + W_down(silu(x''·W_gate) ⊙ x''·W_up),  x'' = RMS(x)

with the key/value heads shared by groups of query heads, the final RMSNorm on the last state (the backbone's
output). RoPE depends on i − j only: texts laid one after another, their positions counted from 0, get the
states they get left-padded in a batch.

>>> from keras_sentemb.families.qwen3.hugging_face_qwen3_backbone import HuggingFaceQwen3Backbone
>>> from keras_sentemb.families.token_layouts import PaddedTokens
>>> backbone = HuggingFaceQwen3Backbone(vocabulary_size=20, num_layers=1, num_query_heads=2,
...     num_key_value_heads=1, head_dim=4, hidden_dim=8, intermediate_dim=16)
>>> ids, mask = tf.constant([[0, 5, 2, 7]]), tf.constant([[0, 1, 1, 1]])
>>> states = qwen3_states(backbone, PaddedTokens(ids, mask))
>>> float(tf.reduce_max(tf.abs(states[-1] - backbone({"token_ids": ids, "padding_mask": mask}))[:, 1:])) < 1e-5
True
"""

import keras_hub
import tensorflow as tf

from keras_sentemb.families.inference_ops import (
    MASKED,
    dense,
    float32_and_unquantised,
    rms_norm,
    rotary_tables_of,
    rotate,
    split_heads,
    token_rows,
)
from keras_sentemb.families.qwen3.keras_hub_adapter import decoder_blocks
from keras_sentemb.families.token_layouts import attention


def computes_qwen3(backbone):
    """Whether `qwen3_states` computes this backbone: a keras-hub `Qwen3Backbone` in float32 of full-attention
    SiLU blocks without YaRN, unquantised."""
    if not isinstance(backbone, keras_hub.models.Qwen3Backbone):
        return False
    blocks = decoder_blocks(backbone)
    return blocks is not None and float32_and_unquantised(
        backbone, [layer for block in blocks for layer in block.dense_layers]
    )


def _norm(layer, x):
    return rms_norm(x, layer.epsilon, layer.scale)


def _queries_keys_values(block, normed, positions):
    query = _norm(block.query_norm, split_heads(dense(block.query, normed), block.query_heads))
    key = _norm(block.key_norm, split_heads(dense(block.key, normed), block.key_value_heads))
    value = split_heads(dense(block.value, normed), block.key_value_heads)
    cos, sin = rotary_tables_of(block.rotary, positions, block.head_dim)
    return rotate(query, cos, sin), rotate(key, cos, sin), value


def _feedforward(block, x):
    normed = _norm(block.feedforward_norm, x)
    return x + dense(block.down, tf.nn.silu(dense(block.gate, normed)) * dense(block.up, normed))


def qwen3_states(backbone, tokens, token_table=None, max_positions=None, projections=None):
    """Every block's output (first to last, the last through the final RMSNorm) for `tokens` (a layout of
    `token_layouts`), causal attention; `token_table` replaces the token table."""
    x = token_rows(backbone.token_embedding.embeddings, tokens.ids, token_table)
    positions = tokens.positions()
    states = []
    for block in decoder_blocks(backbone):
        query, key, value = _queries_keys_values(block, _norm(block.input_norm, x), positions)
        context = tokens.attend(query, key, value, visible=(None, 0))
        x = _feedforward(block, x + dense(block.attention_output, context, 2))
        states.append(x)
    states[-1] = rms_norm(states[-1], backbone.layer_norm.epsilon, backbone.layer_norm.scale)
    return states


def last_real_positions(padding_mask):
    """[B] int32: each row's last position whose mask is 1 (left and right padding alike; 0 if none)."""
    length = tf.shape(padding_mask)[1]
    numbered = tf.cast(padding_mask, tf.int32) * tf.expand_dims(tf.range(length) + 1, 0)
    return tf.maximum(tf.reduce_max(numbered, axis=1) - 1, 0)


def qwen3_last_token_states(backbone, tokens, token_table=None, max_positions=None):
    """`qwen3_states` of a padded batch (`PaddedTokens`) whose last block computes each row's last real token
    alone (its attention against every key, its feed-forward on one row): the last state is [B, 1, hidden],
    for last-token pooling with a mask of ones. A block is 1/L of the model (Qwen3-Embedding-0.6B: 28)."""
    blocks = decoder_blocks(backbone)
    x = token_rows(backbone.token_embedding.embeddings, tokens.ids, token_table)
    positions = tokens.positions()
    states = []
    for block in blocks[:-1]:
        query, key, value = _queries_keys_values(block, _norm(block.input_norm, x), positions)
        x = _feedforward(
            block, x + dense(block.attention_output, tokens.attend(query, key, value, visible=(None, 0)), 2)
        )
        states.append(x)
    block = blocks[-1]
    last = tf.expand_dims(last_real_positions(tokens.padding_mask), 1)  # [B, 1]
    query, key, value = _queries_keys_values(block, _norm(block.input_norm, x), positions)
    query = tf.gather(query, last, batch_dims=1)  # [B, 1, heads, D]
    seen = tf.logical_and(tf.expand_dims(tf.range(tokens.length), 0) <= last, tf.cast(tokens.padding_mask, tf.bool))
    bias = tf.expand_dims(tf.expand_dims(1.0 - tf.cast(seen, tf.float32), 1), 1) * MASKED  # [B, 1, 1, T]
    context = attention(query, key, value, bias=bias)
    x = _feedforward(block, tf.gather(x, last, batch_dims=1) + dense(block.attention_output, context, 2))
    states.append(rms_norm(x, backbone.layer_norm.epsilon, backbone.layer_norm.scale))
    return states
