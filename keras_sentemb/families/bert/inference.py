"""BERT's inference math, once for every runtime: the embeddings, then keras-hub's post-norm blocks.

    x = LN(E_token[t] + E_position[p] + E_segment[0])     p: the token's position in its text
    x = post_norm_block(x) for each block                  (`post_norm_encoder`)

over a keras-hub `BertBackbone` (our `HuggingFaceBertBackbone` included) in any token layout
(`token_layouts`): padded for the fused OpenVINO and LiteRT graphs, texts one after another for the
raw-string SavedModel, one text for its requests of one.

>>> import keras_hub
>>> from keras_sentemb.families.token_layouts import PaddedTokens
>>> backbone = keras_hub.models.BertBackbone(vocabulary_size=50, num_layers=1, num_heads=2,
...     hidden_dim=8, intermediate_dim=16, max_sequence_length=12)
>>> ids, mask = tf.constant([[2, 5, 3, 0]]), tf.constant([[1, 1, 1, 0]])
>>> states = bert_states(backbone, PaddedTokens(ids, mask))
>>> keras_states = backbone({"token_ids": ids, "segment_ids": tf.zeros_like(ids), "padding_mask": mask})
>>> float(tf.reduce_max(tf.abs(states[-1] - keras_states["sequence_output"])[:, :3])) < 1e-5
True
"""

import keras_hub
import tensorflow as tf

from keras_sentemb.families.inference_ops import float32_and_unquantised, keras_layer_norm, token_rows
from keras_sentemb.families.keras_hub_adapter import encoder_blocks
from keras_sentemb.families.post_norm_encoder import post_norm_states


def computes_bert(backbone):
    """Whether `bert_states` computes this backbone: a keras-hub `BertBackbone` in float32 whose blocks are
    post-norm `TransformerEncoder`s with unquantised weights."""
    if not isinstance(backbone, keras_hub.models.BertBackbone):
        return False
    blocks = encoder_blocks(backbone)
    return blocks is not None and float32_and_unquantised(
        backbone, [layer for block in blocks for layer in block.dense_layers]
    )


def bert_states(backbone, tokens, token_table=None, max_positions=None, projections=None):
    """Every block's output (first to last) for `tokens` (a layout of `token_layouts`), segment ids all
    zero, at inference. `token_table` replaces the token table (a pruned vocabulary's rows for ids renumbered
    to it, or quantised rows with `gather(ids)`: the LiteRT export); `max_positions` keeps that many rows of
    the position table in the graph; `projections`: each block's merged Q, K, V kept as variables, or None."""
    position_table = backbone.position_embedding.position_embeddings
    if max_positions is not None:
        position_table = position_table[:max_positions]
    x = (
        token_rows(backbone.token_embedding.embeddings, tokens.ids, token_table)
        + tf.gather(tf.convert_to_tensor(position_table), tokens.positions())
        + tf.convert_to_tensor(backbone.segment_embedding.embeddings)[0]
    )
    x = keras_layer_norm(backbone.embeddings_layer_norm, x)
    return post_norm_states(encoder_blocks(backbone), x, tokens, projections)


def bert_projections(backbone):
    """Each block's Q, K, V as one (kernel, bias) of this moment's weights."""
    return [block.merged_projection() for block in encoder_blocks(backbone)]
