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

from keras_sentemb.families.gemma3.gemma3_layer import Gemma3Layer, gemma3_block, gemma_norm
from keras_sentemb.families.gemma3.gemma3_text_backbone import Gemma3TextBackbone
from keras_sentemb.families.inference_ops import (
    float32_and_unquantised,
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


def gemma3_states(backbone, tokens, token_table=None, max_positions=None, projections=None):
    """Every block's output (first to last, the last through the final norm) for `tokens`; `token_table`
    replaces the token table."""
    x = token_rows(backbone.token_embedding.embeddings, tokens.ids, token_table) * backbone.hidden_dim**0.5
    positions = tokens.positions()
    states = []
    for layer in backbone.transformer_layers:
        x = gemma3_block(layer, x, tokens, positions)
        states.append(x)
    states[-1] = gemma_norm(backbone.final_norm, states[-1])
    return states
