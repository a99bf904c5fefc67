"""Qwen2's inference math, once for every runtime (keras-hub's `QwenBackbone`, through `keras_hub_adapter`):

the pre-norm decoder of `pre_norm_decoder` with biased query, key and value projections and no norm on the
heads: Q = RoPE(x'·W_q + b_q), K = RoPE(x'·W_k + b_k), V = x'·W_v + b_v; SwiGLU; the final RMSNorm on the last
state.

>>> import tensorflow as tf
>>> from keras_sentemb.families.qwen2.hugging_face_qwen2_backbone import HuggingFaceQwen2Backbone
>>> from keras_sentemb.families.token_layouts import PaddedTokens
>>> backbone = HuggingFaceQwen2Backbone(vocabulary_size=20, num_layers=1, num_query_heads=2,
...     num_key_value_heads=1, hidden_dim=8, intermediate_dim=16)
>>> ids, mask = tf.constant([[0, 5, 2, 7]]), tf.constant([[0, 1, 1, 1]])
>>> states = qwen2_states(backbone, PaddedTokens(ids, mask))
>>> float(tf.reduce_max(tf.abs(states[-1] - backbone({"token_ids": ids, "padding_mask": mask}))[:, 1:])) < 1e-5
True
"""

import keras_hub

from keras_sentemb.families.inference_ops import float32_and_unquantised, token_rows
from keras_sentemb.families.pre_norm_decoder import decoder_last_token_states, decoder_states
from keras_sentemb.families.qwen2.keras_hub_adapter import decoder_blocks


def computes_qwen2(backbone):
    """Whether `qwen2_states` computes this backbone: a keras-hub `QwenBackbone` in float32 of full-attention
    SiLU blocks, unquantised."""
    if not isinstance(backbone, keras_hub.models.QwenBackbone):
        return False
    blocks = decoder_blocks(backbone)
    return blocks is not None and float32_and_unquantised(
        backbone, [layer for block in blocks for layer in block.dense_layers]
    )


def qwen2_states(backbone, tokens, token_table=None, max_positions=None, projections=None):
    """Every block's output (first to last, the last through the final RMSNorm) for `tokens` (a layout of
    `token_layouts`), causal attention; `token_table` replaces the token table."""
    x = token_rows(backbone.token_embedding.embeddings, tokens.ids, token_table)
    return decoder_states(decoder_blocks(backbone), x, tokens, backbone.layer_norm)


def qwen2_last_token_states(backbone, tokens, token_table=None, max_positions=None):
    """`qwen2_states` of a padded batch whose last block computes each row's last real token alone
    (`pre_norm_decoder.decoder_last_token_states`): the last state is [B, 1, hidden]."""
    x = token_rows(backbone.token_embedding.embeddings, tokens.ids, token_table)
    return decoder_last_token_states(decoder_blocks(backbone), x, tokens, backbone.layer_norm)
