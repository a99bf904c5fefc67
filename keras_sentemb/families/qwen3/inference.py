"""Qwen3's inference math, once for every runtime (keras-hub's `Qwen3Backbone`, through `keras_hub_adapter`):

the pre-norm decoder of `pre_norm_decoder` with an RMS norm on each head's queries and keys and no projection
biases: Q = RoPE(RMS_q(x'·W_q)), K = RoPE(RMS_k(x'·W_k)), V = x'·W_v; SwiGLU; the final RMSNorm on the last
state.

>>> import tensorflow as tf
>>> from keras_sentemb.families.qwen3.hugging_face_qwen3_backbone import HuggingFaceQwen3Backbone
>>> from keras_sentemb.families.token_layouts import PaddedTokens
>>> backbone = HuggingFaceQwen3Backbone(vocabulary_size=20, num_layers=1, num_query_heads=2,
...     num_key_value_heads=1, head_dim=4, hidden_dim=8, intermediate_dim=16)
>>> ids, mask = tf.constant([[0, 5, 2, 7]]), tf.constant([[0, 1, 1, 1]])
>>> states = qwen3_states(backbone, PaddedTokens(ids, mask))
>>> float(tf.reduce_max(tf.abs(states[-1] - backbone({"token_ids": ids, "padding_mask": mask}))[:, 1:])) < 1e-5
True
"""

import keras_hub

from keras_sentemb.families.pre_norm_decoder import keras_hub_decoder_math
from keras_sentemb.families.qwen3.keras_hub_adapter import decoder_blocks

# computes_qwen3(backbone), qwen3_states(backbone, tokens, token_table=None, …) and
# qwen3_last_token_states(backbone, tokens, …): the shared decoder math over keras-hub's `Qwen3Backbone`.
computes_qwen3, qwen3_states, qwen3_last_token_states = keras_hub_decoder_math(
    keras_hub.models.Qwen3Backbone, decoder_blocks
)
