"""A keras-hub BERT backbone's forward pass in the op shapes OpenVINO fuses.

The Keras layers trace to TensorFlow ops that OpenVINO converts faithfully but cannot fuse:
`LayerNormalization` becomes `tf.nn.moments` + `batch_normalization` (two ReduceMean, a
SquaredDifference, Rsqrt and five element-wise ops, not OpenVINO's MVN), and Keras'
`MultiHeadAttention` computes K·Qᵀ by einsum, transposes the scores and masks them with
`where` before *and* after the softmax (so OpenVINO's CPU plugin does not recognise the
attention block and runs it as separate MatMul, Transpose, Select and Softmax nodes). At one
short sentence the model is overhead-bound: every node costs microseconds whatever it computes.

`bert_layer_states` is the same math, written the way the ONNX/OpenVINO exports of
sentence-transformers are:

    LN(x)      = (x − mean(x)) / sqrt(var(x) + ε) · γ + β                    (→ MVN)
    Q, K, V    = x·W_q + b_q, x·W_k + b_k, x·W_v + b_v,  each [B, H, T, D]
    attention  = softmax(Q·Kᵀ / √D + (1 − mask)·(−10⁹)) · V                  (→ fused MHA)
    x          = LN₁(x + attention·W_o + b_o);   x = LN₂(x + FFN(x))

with the backbone's own weights read at call time (LoRA adapters included: `EinsumDense.kernel`
is the merged kernel) and the feed-forward `Dense` layers called as they are. It is used for
the OpenVINO conversion only (`SentenceEncoder.openvino_graph_fn`); the vectors equal the
Keras model's to float32 round-off (tests/pretrained/test_bert_inference_graph.py).

Example:
>>> import keras_hub, tensorflow as tf
>>> backbone = keras_hub.models.BertBackbone(vocabulary_size=50, num_layers=1, num_heads=2,
...     hidden_dim=8, intermediate_dim=16, max_sequence_length=12)
>>> ids, mask = tf.constant([[2, 5, 3, 0]]), tf.constant([[1, 1, 1, 0]])
>>> states = bert_layer_states(backbone, ids, mask)
>>> keras_states = backbone({"token_ids": ids, "segment_ids": tf.zeros_like(ids), "padding_mask": mask})
>>> float(tf.reduce_max(tf.abs(states[-1] - keras_states["sequence_output"]))) < 1e-5
True
"""

import keras
import keras_hub
import tensorflow as tf

_MASKED = -1e9  # Keras' Softmax mask value: exp(−10⁹ + s) is exactly 0 in float32


def float32_and_unquantised(backbone, dense_layers):
    """Whether `backbone` computes in float32 and none of `dense_layers` is quantised: what the
    fused inference graphs read their weights as."""
    if keras.backend.standardize_dtype(backbone.dtype_policy.compute_dtype) != "float32":
        return False
    return not any(
        getattr(dense, "quantization_mode", None) or dense.dtype_policy.quantization_mode for dense in dense_layers
    )


def supports_bert_layer_states(backbone):
    """Whether `bert_layer_states` computes this backbone: a keras-hub `BertBackbone` in
    float32 whose blocks are post-layer-norm `TransformerEncoder`s with unquantised weights."""
    if not isinstance(backbone, keras_hub.models.BertBackbone):
        return False
    dense_layers = []
    for block in backbone.transformer_layers:
        if type(block) is not keras_hub.layers.TransformerEncoder or block.normalize_first:
            return False
        attention = block._self_attention_layer
        if type(attention) is not keras.layers.MultiHeadAttention:
            return False
        dense_layers += [
            *attention_projections(attention),
            block._feedforward_intermediate_dense,
            block._feedforward_output_dense,
        ]
    return float32_and_unquantised(backbone, dense_layers)


def attention_projections(attention):
    """The query, key, value and output projections of an attention layer (Keras'
    `MultiHeadAttention` and keras-hub's decoder attentions name them alike)."""
    return [attention._query_dense, attention._key_dense, attention._value_dense, attention._output_dense]


def mvn_layer_norm(layer, x):
    """A Keras `LayerNormalization`'s output, written as the mean-variance normalisation OpenVINO
    fuses into one MVN node: (x − mean) / sqrt(var + ε) · γ + β over the last axis."""
    mean = tf.reduce_mean(x, axis=[-1], keepdims=True)
    centred = x - mean
    variance = tf.reduce_mean(centred * centred, axis=[-1], keepdims=True)
    return centred / tf.sqrt(variance + layer.epsilon) * layer.gamma + layer.beta


def _heads(dense, x, batch, length):
    """x·W + b of an `EinsumDense` "abc,cde->abde", as [batch, heads, length, head_dim]."""
    kernel = tf.convert_to_tensor(dense.kernel)
    hidden, heads, size = kernel.shape
    y = tf.matmul(x, tf.reshape(kernel, [hidden, heads * size])) + tf.reshape(dense.bias, [heads * size])
    return tf.transpose(tf.reshape(y, [batch, length, heads, size]), [0, 2, 1, 3])


def _attention(attention, x, additive_mask):
    batch, length = tf.shape(x)[0], tf.shape(x)[1]
    query = _heads(attention._query_dense, x, batch, length)
    key = _heads(attention._key_dense, x, batch, length)
    value = _heads(attention._value_dense, x, batch, length)
    size = query.shape[-1]
    scores = tf.matmul(query, key, transpose_b=True) * (1.0 / size**0.5) + additive_mask
    context = tf.matmul(tf.nn.softmax(scores, axis=-1), value)  # [batch, heads, length, size]
    kernel = tf.convert_to_tensor(attention._output_dense.kernel)  # [heads, size, hidden]
    heads, _, hidden = kernel.shape
    context = tf.reshape(tf.transpose(context, [0, 2, 1, 3]), [batch, length, heads * size])
    return tf.matmul(context, tf.reshape(kernel, [heads * size, hidden])) + attention._output_dense.bias


def token_rows(token_embedding, token_table, token_ids):
    """The embedding rows of `token_ids`: from `token_table` when given (a tensor, or an object with
    `gather(ids)`), else from the `token_embedding` layer's table."""
    if token_table is None:
        token_table = token_embedding.embeddings
    if callable(getattr(token_table, "gather", None)):
        return token_table.gather(token_ids)
    return tf.gather(tf.convert_to_tensor(token_table), token_ids)


def bert_layer_states(backbone, token_ids, padding_mask, token_table=None, max_positions=None):
    """Every transformer block's output [B, T, hidden] (first to last) of a BERT backbone
    for int32 `token_ids` and `padding_mask` [B, T], segment ids all zero, at inference.
    The backbone must pass `supports_bert_layer_states`.

    `token_table` replaces the token embedding table (the rows of a pruned vocabulary, for ids
    renumbered to it: the LiteRT export), as a tensor or an object with `gather(ids)` (quantised rows);
    `max_positions` keeps only that many rows of the position table in the graph (a tokenizer that
    packs at most that many tokens)."""
    token_ids = tf.convert_to_tensor(token_ids, tf.int32)
    length = tf.shape(token_ids)[1]
    position_table = backbone.position_embedding.position_embeddings
    if max_positions is not None:
        position_table = position_table[:max_positions]
    positions = tf.convert_to_tensor(position_table)[:length]
    segment = tf.convert_to_tensor(backbone.segment_embedding.embeddings)[0]
    x = token_rows(backbone.token_embedding, token_table, token_ids) + positions + segment
    x = mvn_layer_norm(backbone.embeddings_layer_norm, x)
    keep = tf.reshape(tf.cast(padding_mask, tf.float32), tf.stack([tf.shape(padding_mask)[0], 1, 1, -1]))
    additive_mask = (1.0 - keep) * _MASKED
    states = []
    for block in backbone.transformer_layers:
        x = mvn_layer_norm(
            block._self_attention_layer_norm, x + _attention(block._self_attention_layer, x, additive_mask)
        )
        feedforward = block._feedforward_output_dense(block._feedforward_intermediate_dense(x))
        x = mvn_layer_norm(block._feedforward_layer_norm, x + feedforward)
        states.append(x)
    return states
