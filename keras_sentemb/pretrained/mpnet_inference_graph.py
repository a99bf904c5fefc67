"""An `MPNetBackbone`'s forward pass in the op shapes OpenVINO fuses (as `bert_inference_graph` is
for BERT).

The Keras layers trace `LayerNormalization` as `tf.nn.moments` + `batch_normalization` and the
attention with per-call casts and transposes; at one short sentence every node costs microseconds.
`mpnet_layer_states` computes the same math the way exported ONNX/OpenVINO transformer graphs are
written, with the backbone's own weights read at call time:

    LN(x)      = (x − mean(x)) / sqrt(var(x) + ε) · γ + β                      (→ MVN)
    Q, K, V    = x·W_q + b_q, x·W_k + b_k, x·W_v + b_v,  each [B, H, T, D]
    attention  = softmax(Q·Kᵀ / √D + bias + (1 − mask)·(−10⁹)) · V              bias: [1, H, T, T]
    x          = LN₁(x + attention·W_o + b_o);   x = LN₂(x + FFN(x))

where `bias` is the shared `RelativePositionBias` and the position ids are MPNet's. It is used for
the OpenVINO conversion only (`SentenceEncoder.openvino_graph_fn`); the states equal the Keras
model's to float32 round-off (tests/pretrained/test_mpnet_inference_graph.py).

Example:
>>> import numpy as np
>>> from keras_sentemb.backbones import MPNetBackbone
>>> backbone = MPNetBackbone(vocabulary_size=20, num_layers=1, num_heads=2, hidden_dim=8,
...                          intermediate_dim=16, max_sequence_length=12)
>>> ids, mask = tf.constant([[0, 5, 2, 1]]), tf.constant([[1, 1, 1, 0]])
>>> states = mpnet_layer_states(backbone, ids, mask)
>>> float(tf.reduce_max(tf.abs(states[-1] - backbone({"token_ids": ids, "padding_mask": mask}))[:, :3])) < 1e-5
True
"""

import tensorflow as tf

from keras_sentemb.backbones.mpnet_backbone import MPNetBackbone
from keras_sentemb.backbones.mpnet_embedding import position_ids
from keras_sentemb.backbones.mpnet_transformer_layer import MPNetTransformerLayer
from keras_sentemb.pretrained.bert_inference_graph import float32_and_unquantised, mvn_layer_norm, token_rows

_MASKED = -1e9


def supports_mpnet_layer_states(backbone):
    """Whether `mpnet_layer_states` computes this backbone: an `MPNetBackbone` in float32 with
    unquantised dense layers."""
    if not isinstance(backbone, MPNetBackbone):
        return False
    if any(type(block) is not MPNetTransformerLayer for block in backbone.transformer_layers):
        return False
    dense_layers = [
        dense
        for block in backbone.transformer_layers
        for dense in (
            block.query,
            block.key,
            block.value,
            block.attention_output,
            block.feedforward_intermediate_dense,
            block.feedforward_output_dense,
        )
    ]
    return float32_and_unquantised(backbone, dense_layers)


def _heads(dense, x, batch, length, heads):
    """x·W + b of a `Dense` layer, as [batch, heads, length, head_dim]."""
    y = tf.matmul(x, tf.convert_to_tensor(dense.kernel)) + dense.bias
    return tf.transpose(tf.reshape(y, [batch, length, heads, -1]), [0, 2, 1, 3])


def mpnet_layer_states(backbone, token_ids, padding_mask, token_table=None):
    """Every block's output [B, T, hidden] (first to last) of an MPNet backbone for int32
    `token_ids` and `padding_mask` [B, T], at inference. The backbone must pass
    `supports_mpnet_layer_states`. `token_table` replaces the token embedding table (a tensor, or
    quantised rows with `gather(ids)`; the ids stay the model's own: MPNet's positions read its pad id)."""
    token_ids = tf.convert_to_tensor(token_ids, tf.int32)
    embeddings = backbone.embeddings
    batch, length = tf.shape(token_ids)[0], tf.shape(token_ids)[1]
    x = mpnet_embedding_output(embeddings, token_ids, position_ids(token_ids, embeddings.pad_token_id), token_table)
    keep = tf.reshape(tf.cast(padding_mask, tf.float32), tf.stack([tf.shape(padding_mask)[0], 1, 1, -1]))
    additive = backbone.relative_position_bias(x) + (1.0 - keep) * _MASKED  # [B, H, T, T]
    heads = backbone.num_heads
    states = []
    for block in backbone.transformer_layers:
        query = _heads(block.query, x, batch, length, heads)
        key = _heads(block.key, x, batch, length, heads)
        value = _heads(block.value, x, batch, length, heads)
        scores = tf.matmul(query, key, transpose_b=True) * (1.0 / block.head_dim**0.5) + additive
        context = tf.matmul(tf.nn.softmax(scores, axis=-1), value)
        context = tf.reshape(tf.transpose(context, [0, 2, 1, 3]), [batch, length, heads * block.head_dim])
        x = mpnet_block_after_attention(block, x, context)
        states.append(x)
    return states


def mpnet_embedding_output(embeddings, token_ids, positions, token_table=None):
    """An `MPNetEmbedding`'s output at inference, LN(E_token[id] + E_position[p]), for token ids and
    their MPNet `positions` of any shape (a padded batch, or texts' tokens one after another);
    `token_table` as in `mpnet_layer_states`."""
    x = token_rows(embeddings.token_embedding, token_table, token_ids) + tf.gather(
        tf.convert_to_tensor(embeddings.position_embedding.embeddings), positions
    )
    return mvn_layer_norm(embeddings.layer_norm, x)


def mpnet_block_after_attention(block, x, context):
    """The rest of an MPNet block once attention gave `context` (heads concatenated, as `x` [..., hidden]):
    x = LN₁(x + context·W_o + b_o); x = LN₂(x + FFN(x)), the weights read at call time."""
    attended = tf.matmul(context, tf.convert_to_tensor(block.attention_output.kernel)) + block.attention_output.bias
    x = mvn_layer_norm(block.attention_layer_norm, x + attended)
    feedforward = block.feedforward_output_dense(block.feedforward_intermediate_dense(x))
    return mvn_layer_norm(block.feedforward_layer_norm, x + feedforward)
