"""T5's encoder inference math, once for every runtime: the token rows, `t5_block` over the blocks (the Keras
layers' own math) with the shared relative position bias, T5's final norm.

bias(T) depends on i − j only, so texts laid one after another read it per attention group at the group's
longest length (`token_layouts.FlatTokens`) and get the states they get alone.

>>> import tensorflow as tf
>>> from keras_sentemb.families.t5.t5_encoder_backbone import T5EncoderBackbone
>>> from keras_sentemb.families.token_layouts import PaddedTokens
>>> backbone = T5EncoderBackbone(vocabulary_size=20, num_layers=1, num_heads=2, hidden_dim=8, key_value_dim=4,
...                              intermediate_dim=16, max_sequence_length=12)
>>> ids, mask = tf.constant([[5, 7, 1, 0]]), tf.constant([[1, 1, 1, 0]])
>>> states = t5_states(backbone, PaddedTokens(ids, mask))
>>> float(tf.reduce_max(tf.abs(states[-1] - backbone({"token_ids": ids, "padding_mask": mask}))[:, :3])) < 1e-5
True
"""

from keras_sentemb.families.inference_ops import float32_and_unquantised, token_rows
from keras_sentemb.families.t5.t5_block import t5_block, t5_norm
from keras_sentemb.families.t5.t5_encoder_backbone import T5EncoderBackbone
from keras_sentemb.families.t5.t5_encoder_layer import T5EncoderLayer


def _dense_layers(layer):
    gate = [layer.feedforward_gate_dense] if layer.gated else []
    return [
        layer.query,
        layer.key,
        layer.value,
        layer.attention_output,
        layer.feedforward_intermediate_dense,
        *gate,
        layer.feedforward_output_dense,
    ]


def computes_t5(backbone):
    """Whether `t5_states` computes this backbone: a `T5EncoderBackbone` of `T5EncoderLayer`s in float32,
    unquantised."""
    if not isinstance(backbone, T5EncoderBackbone):
        return False
    if any(type(layer) is not T5EncoderLayer for layer in backbone.transformer_layers):
        return False
    return float32_and_unquantised(
        backbone, [dense for layer in backbone.transformer_layers for dense in _dense_layers(layer)]
    )


def t5_states(backbone, tokens, token_table=None, max_positions=None, projections=None):
    """Every block's output (first to last, the last through the final norm) for `tokens` (a layout of
    `token_layouts`); `token_table` replaces the token table."""
    x = token_rows(backbone.token_embedding.embeddings, tokens.ids, token_table)
    bias = backbone.relative_position_bias.of_length
    states = []
    for layer in backbone.transformer_layers:
        x = t5_block(layer, x, tokens, bias)
        states.append(x)
    states[-1] = t5_norm(backbone.layer_norm, states[-1])
    return states
