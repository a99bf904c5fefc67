"""Gemma 3's inference math (EmbeddingGemma's encoder), once for every runtime (our `Gemma3TextBackbone`):

    N(x) = x / sqrt(mean(x²) + ε) · (1 + w)                                   Gemma's RMSNorm
    x₀   = √hidden · E[t]
    a    = x + N_post_attn(Wo · attend(RoPE_θ(N_q(Wq·N_in(x))), RoPE_θ(N_k(Wk·N_in(x))), Wv·N_in(x)))
    x    = a + N_post_ffw(W_down · (act(W_gate·N_pre_ffw(a)) ⊙ W_up·N_pre_ffw(a)))
    out  = N_final(x_L)

with scores q·kᵀ / √query_pre_attn_scalar (soft-capped where the config says), key/value heads shared by
groups of query heads, causal or bidirectional, a sliding layer closed to |i − j| < window (i − j < window
when causal).

>>> import tensorflow as tf
>>> from keras_sentemb.families.gemma3.gemma3_text_backbone import Gemma3TextBackbone
>>> from keras_sentemb.families.token_layouts import PaddedTokens
>>> backbone = Gemma3TextBackbone(20, 2, 2, 1, 4, 8, 16, layer_types=["sliding_attention", "full_attention"],
...                               sliding_window=4, bidirectional=True)
>>> ids, mask = tf.constant([[2, 5, 6, 7, 0]]), tf.constant([[1, 1, 1, 1, 0]])
>>> states = gemma3_states(backbone, PaddedTokens(ids, mask))
>>> float(tf.reduce_max(tf.abs(states[-1] - backbone({"token_ids": ids, "padding_mask": mask}))[:, :4])) < 1e-5
True
"""

from keras_sentemb.families.gemma3.gemma3_layer import Gemma3Layer
from keras_sentemb.families.gemma3.gemma3_text_backbone import Gemma3TextBackbone
from keras_sentemb.families.hidden_activations import hidden_activation
from keras_sentemb.families.inference_ops import (
    dense,
    float32_and_unquantised,
    rms_norm,
    rotary_tables_of,
    rotate,
    split_heads,
    token_rows,
)


def _dense_layers(layer):
    return [layer.query, layer.key, layer.value, layer.attention_output, layer.gate, layer.up, layer.down]


def computes_gemma3(backbone):
    """Whether `gemma3_states` computes this backbone: a `Gemma3TextBackbone` in float32, unquantised."""
    if not isinstance(backbone, Gemma3TextBackbone):
        return False
    if any(type(layer) is not Gemma3Layer for layer in backbone.transformer_layers):
        return False
    return float32_and_unquantised(backbone, [d for layer in backbone.transformer_layers for d in _dense_layers(layer)])


def _norm(layer, x):
    return rms_norm(x, layer.epsilon, layer.scale, offset=1.0)


def _visible(layer):
    """The keys a query sees: (before, after) as `token_layouts.attention` takes it."""
    after = None if layer.bidirectional else 0
    if layer.window is None:
        return None if layer.bidirectional else (None, 0)
    return (layer.window - 1, layer.window - 1 if layer.bidirectional else after)


def gemma3_block(layer, x, tokens, positions):
    """One `Gemma3Layer` on x [..., hidden] laid out as `tokens` says."""
    normed = _norm(layer.input_norm, x)
    query = _norm(layer.query_norm, split_heads(dense(layer.query, normed), layer.num_query_heads))
    key = _norm(layer.key_norm, split_heads(dense(layer.key, normed), layer.num_key_value_heads))
    value = split_heads(dense(layer.value, normed), layer.num_key_value_heads)
    cos, sin = rotary_tables_of(layer.rotary, positions, layer.head_dim)
    context = tokens.attend(
        rotate(query, cos, sin),
        rotate(key, cos, sin),
        value,
        visible=_visible(layer),
        scale=layer.query_pre_attn_scalar**-0.5,
        soft_cap=layer.soft_cap,
    )
    x = x + _norm(layer.post_attention_norm, dense(layer.attention_output, context))
    normed = _norm(layer.pre_feedforward_norm, x)
    mlp = dense(layer.down, hidden_activation(layer.activation)(dense(layer.gate, normed)) * dense(layer.up, normed))
    return x + _norm(layer.post_feedforward_norm, mlp)


def gemma3_states(backbone, tokens, token_table=None, max_positions=None, projections=None):
    """Every block's output (first to last, the last through the final norm) for `tokens`; `token_table`
    replaces the token table."""
    x = token_rows(backbone.token_embedding.embeddings, tokens.ids, token_table) * backbone.hidden_dim**0.5
    positions = tokens.positions()
    states = []
    for layer in backbone.transformer_layers:
        x = gemma3_block(layer, x, tokens, positions)
        states.append(x)
    states[-1] = _norm(backbone.final_norm, states[-1])
    return states
