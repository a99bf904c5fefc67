"""DistilBERT's inference math, once for every runtime: token + position embeddings, then keras-hub's
post-norm blocks (BERT's).

    x = LN(E_token[t] + E_position[p]);   x = post_norm_block(x) for each block

>>> import keras_hub
>>> from keras_sentemb.families.token_layouts import PaddedTokens
>>> backbone = keras_hub.models.DistilBertBackbone(vocabulary_size=20, num_layers=1, num_heads=2,
...     hidden_dim=8, intermediate_dim=16, max_sequence_length=12)
>>> ids, mask = tf.constant([[2, 5, 3, 0]]), tf.constant([[1, 1, 1, 0]])
>>> states = distilbert_states(backbone, PaddedTokens(ids, mask))
>>> float(tf.reduce_max(tf.abs(states[-1] - backbone({"token_ids": ids, "padding_mask": mask}))[:, :3])) < 1e-5
True
"""

import keras_hub
import tensorflow as tf

from keras_sentemb.families.inference_ops import float32_and_unquantised, keras_layer_norm, token_rows
from keras_sentemb.families.keras_hub_adapter import encoder_blocks
from keras_sentemb.families.post_norm_encoder import post_norm_states


def computes_distilbert(backbone):
    """Whether `distilbert_states` computes this backbone: a keras-hub `DistilBertBackbone` in float32 of
    post-norm `TransformerEncoder`s, unquantised."""
    if not isinstance(backbone, keras_hub.models.DistilBertBackbone):
        return False
    blocks = encoder_blocks(backbone)
    return blocks is not None and float32_and_unquantised(
        backbone, [layer for block in blocks for layer in block.dense_layers]
    )


def distilbert_states(backbone, tokens, token_table=None, max_positions=None, projections=None):
    """Every block's output (first to last) for `tokens`; the options as `bert_states` takes them."""
    position_table = backbone.embeddings.position_embedding.position_embeddings
    if max_positions is not None:
        position_table = position_table[:max_positions]
    x = token_rows(backbone.token_embedding.embeddings, tokens.ids, token_table) + tf.gather(
        tf.convert_to_tensor(position_table), tokens.positions()
    )
    x = keras_layer_norm(backbone.embeddings_layer_norm, x)
    return post_norm_states(encoder_blocks(backbone), x, tokens, projections)


def distilbert_projections(backbone):
    """Each block's Q, K, V as one (kernel, bias) of this moment's weights."""
    return [block.merged_projection() for block in encoder_blocks(backbone)]
