"""A keras-hub BERT backbone's forward pass without padding: the dense layers see real tokens only.

N texts of lengths ℓ₁ ≥ … ≥ ℓ_N padded to ℓ₁ run every dense layer (the Q/K/V and output
projections, the feed-forward layers and layer norms: nearly all of BERT's work at sentence
lengths) on N·ℓ₁ rows. Here they run on the Σℓ real tokens, one text after another
([Σℓ, hidden]), in matmuls as large as the whole batch. Only attention needs the texts side by
side: they go in `attention_groups` groups of consecutive texts (longest first, so a group holds
texts of similar length), each scattered into a block [n_g, heads, ℓ_g, ℓ_g] padded to its own
longest text ℓ_g and gathered back:

    x       = LN(E_token[t] + E_position[p] + E_segment[0])        t, p over the Σℓ tokens
    Q, K, V = x·[W_q W_k W_v] + [b_q b_k b_v]                      one matmul [Σℓ, 3·hidden]
    per group: A = softmax(Q·Kᵀ / √D + (1 − mask)·(−10⁹))·V        padded to ℓ_g
    x       = LN₁(x + A·W_o + b_o);   x = LN₂(x + FFN(x))

("Removing padding", as NVIDIA's Effective Transformer and FasterTransformer run BERT.) The
math and the weights are the backbone's (LoRA-merged kernels are read at call time), so every
text's states equal the Keras model's on a padded batch to float32 round-off
(tests/pretrained/test_unpadded_bert_graph.py). `grouped_attention` and `one_text_attention` take an
additive position bias too: `unpadded_mpnet_graph` runs MPNet on them.

Why: the raw-string SavedModel gets one client's request of 32 texts of mixed lengths. Padded to
its longest text it ran at 0.47× `encode` (which sorts the whole corpus); cut into chunks of
similar length, 0.77× (small chunks make small matmuls); without padding, at `encode`'s speed
(docs/serving_speed.md).

Example:
>>> import keras_hub, tensorflow as tf
>>> backbone = keras_hub.models.BertBackbone(vocabulary_size=50, num_layers=1, num_heads=2,
...     hidden_dim=8, intermediate_dim=16, max_sequence_length=12)
>>> sequences = tf.ragged.constant([[2, 5, 6, 3], [2, 7, 3]])
>>> states = unpadded_bert_states(backbone, sequences, attention_groups=2)
>>> padded = to_padded(states[-1], sequences.row_lengths())
>>> keras_states = backbone({"token_ids": tf.constant([[2, 5, 6, 3], [2, 7, 3, 0]]),
...     "segment_ids": tf.zeros([2, 4], tf.int32), "padding_mask": tf.constant([[1, 1, 1, 1], [1, 1, 1, 0]])})
>>> mask = tf.constant([[1.0, 1, 1, 1], [1, 1, 1, 0]])[:, :, None]
>>> float(tf.reduce_max(tf.abs((padded - keras_states["sequence_output"]) * mask))) < 1e-5
True
"""

import tensorflow as tf

from keras_sentemb.pretrained.bert_inference_graph import mvn_layer_norm, supports_bert_layer_states

_MASKED = -1e9  # exp(−10⁹ + s) is exactly 0 in float32: padding gets no attention
# Attention groups per batch: 1 pads every text's attention to the longest text; 4 took requests
# of 32 STS-B sentences from 0.86x to 1.0x `encode`'s speed on 2 cores (more groups, more ops).
ATTENTION_GROUPS = 4


def supports_unpadded_bert_states(backbone):
    """Whether `unpadded_bert_states` computes this backbone: the backbones `bert_layer_states`
    takes (keras-hub `BertBackbone`, float32, post-layer-norm blocks, unquantised weights)."""
    return supports_bert_layer_states(backbone)


def _token_coordinates(lengths):
    """[Σℓ, 2] (text, position) of every token of texts of `lengths`, one text after another."""
    return tf.stack([tf.repeat(tf.range(tf.size(lengths)), lengths), tf.ragged.range(lengths).flat_values], axis=1)


def to_padded(flat_states, lengths):
    """[Σℓ, …] states of texts of `lengths` (one after another) → [N, max ℓ, …], zeros after each
    text's end (the layout of a padded batch)."""
    lengths = tf.cast(lengths, tf.int32)
    longest = tf.reduce_max(tf.concat([lengths, [0]], axis=0))
    shape = tf.concat([[tf.size(lengths), longest], tf.shape(flat_states)[1:]], axis=0)
    return tf.scatter_nd(_token_coordinates(lengths), flat_states, shape)


def group_longest(lengths):
    """The padded length of a group of texts of `lengths` in `_attention_group` (1 for no texts)."""
    return tf.reduce_max(tf.concat([lengths, [1]], axis=0))


def _attention_group(qkv, lengths, heads, position_bias=None):
    """Self-attention of one group of texts: `qkv` [Σℓ_g, 3·hidden] → context [Σℓ_g, hidden].
    `position_bias`: an additive [1, heads, ℓ_g, ℓ_g] for the group's longest text ℓ_g (MPNet's
    relative positions), or None."""
    count = tf.size(lengths)
    longest = group_longest(lengths)
    hidden = qkv.shape[-1] // 3
    size = hidden // heads
    coordinates = _token_coordinates(lengths)
    padded = tf.scatter_nd(coordinates, qkv, [count, longest, 3 * hidden])
    padded = tf.transpose(tf.reshape(padded, [count, longest, 3, heads, size]), [2, 0, 3, 1, 4])
    query, key, value = padded[0] * (1.0 / size**0.5), padded[1], padded[2]
    keep = tf.sequence_mask(lengths, longest, dtype=tf.float32)[:, tf.newaxis, tf.newaxis, :]
    scores = tf.matmul(query, key, transpose_b=True) + (1.0 - keep) * _MASKED
    if position_bias is not None:
        scores += position_bias
    context = tf.matmul(tf.nn.softmax(scores, axis=-1), value)  # [count, heads, longest, size]
    context = tf.reshape(tf.transpose(context, [0, 2, 1, 3]), [count, longest, hidden])
    return tf.gather_nd(context, coordinates)


def merged_dense_projection(query, key, value):
    """Three projection layers (`Dense` [hidden, hidden] or `EinsumDense` [hidden, heads, size]) as one
    [hidden, 3·hidden] kernel and [3·hidden] bias, read at call time (LoRA-merged kernels included)."""
    kernels, biases = [], []
    for dense in (query, key, value):
        kernel = tf.convert_to_tensor(dense.kernel)
        kernels.append(tf.reshape(kernel, [kernel.shape[0], -1]))
        biases.append(tf.reshape(dense.bias, [-1]))
    return tf.concat(kernels, axis=1), tf.concat(biases, axis=0)


def _merged_projection(attention):
    """The Q, K, V `EinsumDense` layers of a Keras `MultiHeadAttention` as one projection."""
    return merged_dense_projection(attention._query_dense, attention._key_dense, attention._value_dense)


def one_text_attention(qkv, heads, position_bias=None):
    """Self-attention of a single text: `qkv` [ℓ, 3·hidden] → context [ℓ, hidden]. Every token
    is real, so there is nothing to scatter, gather or mask: the same softmax as
    `_attention_group` on a group of one text, in five fewer ops a layer. `position_bias`: an
    additive [1, heads, ℓ, ℓ], or None."""
    hidden = qkv.shape[-1] // 3
    size = hidden // heads
    parts = tf.transpose(tf.reshape(qkv, [-1, 3, heads, size]), [1, 2, 0, 3])  # [3, heads, ℓ, size]
    scores = tf.matmul(parts[0] * (1.0 / size**0.5), parts[1], transpose_b=True)
    if position_bias is not None:
        scores += position_bias[0]
    context = tf.matmul(tf.nn.softmax(scores, axis=-1), parts[2])  # [heads, ℓ, size]
    return tf.reshape(tf.transpose(context, [1, 0, 2]), [-1, hidden])


def merged_projections(backbone):
    """Per block of `backbone`, its Q, K, V projection as one `(kernel [hidden, 3·hidden], bias
    [3·hidden])`, as tensors of this moment's weights. Kept as variables beside a graph (the serving
    module does), they spare a request the three-kernel concatenation of every block (all-MiniLM-L6-v2,
    one 15-token text, 2 cores: 5.5 → 4.7 ms for the backbone in TensorFlow)."""
    return [_merged_projection(block._self_attention_layer) for block in backbone.transformer_layers]


def _bert_blocks(backbone, token_ids, positions, attend, projections=None):
    """The embeddings and every block of `backbone` on flat tokens `token_ids` [Σℓ] at
    `positions` [Σℓ], self-attention by `attend(qkv [Σℓ, 3·hidden], heads)` → [Σℓ, hidden];
    returns every block's output [Σℓ, hidden]. `projections`: `merged_projections(backbone)`
    computed earlier, or None to merge the kernels here."""
    x = (
        tf.gather(tf.convert_to_tensor(backbone.token_embedding.embeddings), token_ids)
        + tf.gather(tf.convert_to_tensor(backbone.position_embedding.position_embeddings), positions)
        + tf.convert_to_tensor(backbone.segment_embedding.embeddings)[0]
    )
    x = mvn_layer_norm(backbone.embeddings_layer_norm, x)
    states = []
    for index, block in enumerate(backbone.transformer_layers):
        attention = block._self_attention_layer
        kernel, bias = _merged_projection(attention) if projections is None else projections[index]
        context = attend(tf.nn.bias_add(tf.matmul(x, kernel), bias), attention._num_heads)
        output_kernel = tf.convert_to_tensor(attention._output_dense.kernel)  # [heads, size, hidden]
        output = tf.matmul(context, tf.reshape(output_kernel, [-1, output_kernel.shape[-1]]))
        x = mvn_layer_norm(block._self_attention_layer_norm, x + output + attention._output_dense.bias)
        feedforward = block._feedforward_output_dense(block._feedforward_intermediate_dense(x))
        x = mvn_layer_norm(block._feedforward_layer_norm, x + feedforward)
        states.append(x)
    return states


def grouped_attention(lengths, attention_groups=ATTENTION_GROUPS, position_bias=None):
    """`attend(qkv [Σℓ, 3·hidden], heads)` → context [Σℓ, hidden] for texts of `lengths` (int32
    [N]) laid one after another, in `attention_groups` groups of consecutive texts, each padded to
    its own longest text. `position_bias(length)` → an additive [1, heads, length, length] (MPNet's
    relative positions), computed once per group here, or None."""
    if not isinstance(attention_groups, int) or isinstance(attention_groups, bool) or attention_groups < 1:
        raise ValueError(f"attention_groups must be a positive int, got {attention_groups!r}")
    count = tf.size(lengths)
    # Group g: texts [⌊gN/G⌋, ⌊(g+1)N/G⌋) and their tokens [first token, end token).
    text_bounds = [(count * group) // attention_groups for group in range(attention_groups + 1)]
    token_starts = tf.concat([[0], tf.cumsum(lengths)], axis=0)
    groups = []
    for start, end in zip(text_bounds[:-1], text_bounds[1:]):
        group_lengths = lengths[start:end]
        bias = None if position_bias is None else position_bias(group_longest(group_lengths))
        groups.append((group_lengths, token_starts[start], token_starts[end], bias))

    def attend(qkv, heads):
        return tf.concat(
            [
                _attention_group(qkv[first:end], group_lengths, heads, bias)
                for group_lengths, first, end, bias in groups
            ],
            0,
        )

    return attend


def unpadded_bert_states(backbone, sequences, attention_groups=ATTENTION_GROUPS, projections=None):
    """Every transformer block's output (first to last) for `sequences`, a `tf.RaggedTensor`
    [N, (ℓ)] of token ids with their special tokens (segment ids all zero, inference), each as
    [Σℓ, hidden]: the texts' tokens one after another (`to_padded` lays them out as a padded
    batch). Fastest with the texts sorted longest first; any order gives the same states. The
    backbone must pass `supports_unpadded_bert_states`. `projections`: see `merged_projections`."""
    sequences = tf.cast(sequences, tf.int32)
    lengths = tf.cast(sequences.row_lengths(), tf.int32)
    attend = grouped_attention(lengths, attention_groups)
    return _bert_blocks(backbone, sequences.flat_values, tf.ragged.range(lengths).flat_values, attend, projections)


def one_text_bert_states(backbone, token_ids, projections=None):
    """`unpadded_bert_states` of a single text, `token_ids` int [ℓ] with its special tokens:
    every block's output [ℓ, hidden]. The same math without the ragged bookkeeping (no groups,
    scatters or masks): the serving graph's path for requests of one text."""
    token_ids = tf.cast(token_ids, tf.int32)
    return _bert_blocks(backbone, token_ids, tf.range(tf.size(token_ids)), one_text_attention, projections)
