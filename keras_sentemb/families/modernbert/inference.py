"""ModernBERT's inference math, once for every runtime (our `ModernBertBackbone`):

    x = LN(E[t])                                             no position table: rotary positions
    a = x + Wo · attend(RoPE_θ(q), RoPE_θ(k), v),            (q, k, v) = Wqkv · LN_attn(x)   (no LN in block 0)
    x = a + Wo' · (act(u) ⊙ g),                              (u, g) = Wi · LN_mlp(a)
    out = LN_final(x_L)

bidirectional attention over real tokens, closed to |i − j| ≤ window in a local layer (its own rotary base).
A block is `modernbert_layer.modernbert_block`, which the Keras layer's call runs too. Local attention is
computed by blocks (`token_layouts.attention_in_windows`, T·3B scores with B = min(T, window), not T²): a 2,048-token text's local layers cost as much as four
512-token texts'.

>>> import tensorflow as tf
>>> from keras_sentemb.families.modernbert.modernbert_backbone import ModernBertBackbone
>>> from keras_sentemb.families.token_layouts import PaddedTokens
>>> backbone = ModernBertBackbone(vocabulary_size=20, num_layers=2, num_heads=2, hidden_dim=8,
...     intermediate_dim=12, global_every=2, window=1)
>>> ids, mask = tf.constant([[1, 5, 6, 7, 2]]), tf.constant([[1, 1, 1, 1, 0]])
>>> states = modernbert_states(backbone, PaddedTokens(ids, mask))
>>> float(tf.reduce_max(tf.abs(states[-1] - backbone({"token_ids": ids, "padding_mask": mask}))[:, :4])) < 1e-5
True
"""

from keras_sentemb.families.inference_ops import (
    float32_and_unquantised,
    keras_layer_norm,
    token_rows,
)
from keras_sentemb.families.modernbert.modernbert_backbone import ModernBertBackbone
from keras_sentemb.families.modernbert.modernbert_layer import ModernBertLayer, modernbert_block


def _dense_layers(layer):
    return [layer.qkv, layer.attention_output, layer.mlp_input, layer.mlp_output]


def computes_modernbert(backbone):
    """Whether `modernbert_states` computes this backbone: a `ModernBertBackbone` in float32, unquantised."""
    if not isinstance(backbone, ModernBertBackbone):
        return False
    if any(type(layer) is not ModernBertLayer for layer in backbone.transformer_layers):
        return False
    return float32_and_unquantised(backbone, [d for layer in backbone.transformer_layers for d in _dense_layers(layer)])


def modernbert_states(backbone, tokens, token_table=None, max_positions=None, projections=None):
    """Every block's output (first to last, the last through the final norm) for `tokens`; `token_table`
    replaces the token table."""
    x = keras_layer_norm(
        backbone.embeddings_layer_norm, token_rows(backbone.token_embedding.embeddings, tokens.ids, token_table)
    )
    positions = tokens.positions()
    states = []
    for layer in backbone.transformer_layers:
        x = modernbert_block(layer, x, tokens, positions)
        states.append(x)
    states[-1] = keras_layer_norm(backbone.final_norm, states[-1])
    return states
