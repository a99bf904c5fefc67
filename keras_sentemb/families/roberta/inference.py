"""RoBERTa's (and XLM-RoBERTa's) inference math, once for every runtime: MPNet's embeddings (RoBERTa's
positions, the token-type row folded into the position table) and keras-hub's post-norm blocks, BERT's.

>>> import tensorflow as tf
>>> from keras_sentemb.families.roberta.hugging_face_roberta_backbone import HuggingFaceRobertaBackbone
>>> from keras_sentemb.families.token_layouts import PaddedTokens
>>> backbone = HuggingFaceRobertaBackbone(vocabulary_size=20, num_layers=1, num_heads=2, hidden_dim=8,
...                                       intermediate_dim=16, max_sequence_length=12)
>>> ids, mask = tf.constant([[0, 5, 2, 1]]), tf.constant([[1, 1, 1, 0]])
>>> states = roberta_states(backbone, PaddedTokens(ids, mask))
>>> float(tf.reduce_max(tf.abs(states[-1] - backbone({"token_ids": ids, "padding_mask": mask}))[:, :3])) < 1e-5
True
"""

from keras_sentemb.families.inference_ops import float32_and_unquantised
from keras_sentemb.families.keras_hub_adapter import encoder_blocks
from keras_sentemb.families.post_norm_encoder import post_norm_states
from keras_sentemb.families.roberta.hugging_face_roberta_backbone import HuggingFaceRobertaBackbone
from keras_sentemb.families.roberta_positions import roberta_embedding_output


def computes_roberta(backbone):
    """Whether `roberta_states` computes this backbone: a `HuggingFaceRobertaBackbone` in float32 whose blocks
    are keras-hub's post-norm `TransformerEncoder`s, unquantised."""
    if not isinstance(backbone, HuggingFaceRobertaBackbone):
        return False
    blocks = encoder_blocks(backbone)
    return blocks is not None and float32_and_unquantised(
        backbone, [layer for block in blocks for layer in block.dense_layers]
    )


def roberta_states(backbone, tokens, token_table=None, max_positions=None, projections=None):
    """Every block's output (first to last) for `tokens`; the options as `bert_states` takes them."""
    x = roberta_embedding_output(backbone.embeddings, tokens, token_table, max_positions)
    return post_norm_states(encoder_blocks(backbone), x, tokens, projections)


def roberta_projections(backbone):
    """Each block's Q, K, V as one (kernel, bias) of this moment's weights."""
    return [block.merged_projection() for block in encoder_blocks(backbone)]
