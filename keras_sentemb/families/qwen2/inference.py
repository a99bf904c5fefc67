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

from keras_sentemb.families.pre_norm_decoder import keras_hub_decoder_math
from keras_sentemb.families.qwen2.keras_hub_adapter import decoder_blocks

# computes_qwen2(backbone), qwen2_states(backbone, tokens, token_table=None, …) and
# qwen2_last_token_states(backbone, tokens, …): the shared decoder math over keras-hub's `QwenBackbone`.
computes_qwen2, qwen2_states, qwen2_last_token_states = keras_hub_decoder_math(
    keras_hub.models.QwenBackbone, decoder_blocks
)
