"""MPNet's inference math, once for every runtime: RoBERTa's positions, the post-norm blocks, and a relative
position bias shared by every block.

    p_t = pad + Σ_{s ≤ t in its text} [id_s ≠ pad]   for a real id, else pad     (RoBERTa's positions)
    x   = LN(E_token[id] + E_position[p])
    A   = softmax(Q·Kᵀ / √D + bias(T) + M)·V         bias: `RelativePositionBias`, [1, heads, T, T]
    x   = post_norm_block(x) for each block          (`post_norm_encoder`)

bias(T) depends on i − j only, so texts laid one after another read it per attention group at the group's
longest length (`token_layouts.FlatTokens`) and get the states they get alone.

>>> import tensorflow as tf
>>> from keras_sentemb.families.mpnet.mpnet_backbone import MPNetBackbone
>>> from keras_sentemb.families.token_layouts import PaddedTokens
>>> backbone = MPNetBackbone(vocabulary_size=20, num_layers=1, num_heads=2, hidden_dim=8,
...                          intermediate_dim=16, max_sequence_length=12)
>>> ids, mask = tf.constant([[0, 5, 2, 1]]), tf.constant([[1, 1, 1, 0]])
>>> states = mpnet_states(backbone, PaddedTokens(ids, mask))
>>> float(tf.reduce_max(tf.abs(states[-1] - backbone({"token_ids": ids, "padding_mask": mask}))[:, :3])) < 1e-5
True
"""

from keras_sentemb.families.inference_ops import float32_and_unquantised
from keras_sentemb.families.mpnet.mpnet_backbone import MPNetBackbone
from keras_sentemb.families.mpnet.mpnet_transformer_layer import MPNetTransformerLayer, mpnet_block
from keras_sentemb.families.post_norm_encoder import post_norm_states
from keras_sentemb.families.roberta_positions import roberta_embedding_output


def computes_mpnet(backbone):
    """Whether `mpnet_states` computes this backbone: an `MPNetBackbone` in float32, unquantised."""
    if not isinstance(backbone, MPNetBackbone):
        return False
    if any(type(layer) is not MPNetTransformerLayer for layer in backbone.transformer_layers):
        return False
    blocks = [mpnet_block(layer) for layer in backbone.transformer_layers]
    return float32_and_unquantised(backbone, [layer for block in blocks for layer in block.dense_layers])


def mpnet_states(backbone, tokens, token_table=None, max_positions=None, projections=None):
    """Every block's output (first to last) of an MPNet backbone for `tokens` (a layout of `token_layouts`),
    at inference; `token_table`, `max_positions`, `projections` as `bert_states` takes them (the ids stay the
    model's own: the positions read its pad id)."""
    x = roberta_embedding_output(backbone.embeddings, tokens, token_table, max_positions)
    blocks = [mpnet_block(layer) for layer in backbone.transformer_layers]
    return post_norm_states(blocks, x, tokens, projections, bias=backbone.relative_position_bias.of_length)


def mpnet_projections(backbone):
    """Each block's Q, K, V as one (kernel, bias) of this moment's weights."""
    return [mpnet_block(layer).merged_projection() for layer in backbone.transformer_layers]
