"""An `MPNetBackbone`'s forward pass without padding: `unpadded_bert_graph`'s, with MPNet's positions
and relative position bias.

The dense layers (Q/K/V and output projections, feed-forward layers, layer norms) run on the Σℓ
real tokens of N texts, one text after another ([Σℓ, hidden]); attention runs in groups of
consecutive texts, each padded to its own longest text ℓ_g (`unpadded_bert_graph.grouped_attention`).
MPNet differs from BERT in two places, both functions of a text's own tokens only:

    p_t     = pad + Σ_{s ≤ t in the text} [id_s ≠ pad]                   position ids (RoBERTa's)
    x       = LN(E_token[id] + E_position[p])
    A       = softmax(Q·Kᵀ / √D + bias(ℓ_g) + (1 − mask)·(−10⁹))·V        bias: `RelativePositionBias`
    x       = LN₁(x + A·W_o + b_o);   x = LN₂(x + FFN(x))

where bias(ℓ_g) [1, heads, ℓ_g, ℓ_g] depends on i − j only, so a text shorter than its group's
longest reads the same bias on its real positions as it would alone. The weights are the backbone's,
read at call time (LoRA-merged kernels included): every text's states equal the Keras model's on a
padded batch to float32 round-off (tests/pretrained/test_unpadded_mpnet_graph.py).

Why: the raw-string SavedModel's requests of 32 mixed-length texts; padded in length chunks,
all-mpnet-base-v2 served them at 0.77× `encode` (docs/serving_speed.md).

Example:
>>> from keras_sentemb.backbones import MPNetBackbone
>>> backbone = MPNetBackbone(vocabulary_size=20, num_layers=1, num_heads=2, hidden_dim=8,
...     intermediate_dim=16, max_sequence_length=12)
>>> sequences = tf.ragged.constant([[0, 5, 6, 2], [0, 7, 2]])
>>> states = unpadded_mpnet_states(backbone, sequences, attention_groups=2)
>>> padded = to_padded(states[-1], sequences.row_lengths())
>>> keras_states = backbone({"token_ids": tf.constant([[0, 5, 6, 2], [0, 7, 2, 1]]),
...     "padding_mask": tf.constant([[1, 1, 1, 1], [1, 1, 1, 0]])})
>>> mask = tf.constant([[1.0, 1, 1, 1], [1, 1, 1, 0]])[:, :, None]
>>> float(tf.reduce_max(tf.abs((padded - keras_states) * mask))) < 1e-5
True
"""

import tensorflow as tf

from keras_sentemb.pretrained.mpnet_inference_graph import (
    mpnet_block_after_attention,
    mpnet_embedding_output,
    supports_mpnet_layer_states,
)
from keras_sentemb.pretrained.unpadded_bert_graph import (
    ATTENTION_GROUPS,
    grouped_attention,
    merged_dense_projection,
    one_text_attention,
    to_padded,
)

__all__ = [
    "mpnet_merged_projections",
    "one_text_mpnet_states",
    "supports_unpadded_mpnet_states",
    "to_padded",
    "unpadded_mpnet_states",
]


def supports_unpadded_mpnet_states(backbone):
    """Whether `unpadded_mpnet_states` computes this backbone: the backbones `mpnet_layer_states`
    takes (`MPNetBackbone`, float32, unquantised dense layers)."""
    return supports_mpnet_layer_states(backbone)


def _merged_projection(block):
    """A block's Q, K, V `Dense` layers as one [hidden, 3·hidden] kernel and [3·hidden] bias."""
    return merged_dense_projection(block.query, block.key, block.value)


def mpnet_merged_projections(backbone):
    """Per block, its Q, K, V projection as one `(kernel, bias)` of this moment's weights (the serving
    module keeps them as variables, as `unpadded_bert_graph.merged_projections` for BERT)."""
    return [_merged_projection(block) for block in backbone.transformer_layers]


def _positions(token_ids, pad_token_id, text_of_token=None, first_token=None):
    """MPNet's position ids (`mpnet_embedding.position_ids`) of flat `token_ids` [Σℓ]: the running
    count of non-pad tokens within each text, from pad + 1 (pad tokens stay at pad). Texts one after
    another: `text_of_token` [Σℓ] and `first_token` [N]; None for a single text."""
    real = tf.cast(tf.not_equal(token_ids, pad_token_id), tf.int32)
    running = tf.cumsum(real)
    if text_of_token is not None:  # less the count before the text's first token
        before = tf.gather(tf.concat([[0], running], axis=0), first_token)
        running -= tf.gather(before, text_of_token)
    return running * real + pad_token_id


def _mpnet_blocks(backbone, token_ids, positions, attend, projections=None):
    """The embeddings and every block of `backbone` on flat tokens `token_ids` [Σℓ] at MPNet
    `positions` [Σℓ], self-attention by `attend(qkv, heads)`; every block's output [Σℓ, hidden]."""
    x = mpnet_embedding_output(backbone.embeddings, token_ids, positions)
    states = []
    for index, block in enumerate(backbone.transformer_layers):
        kernel, bias = _merged_projection(block) if projections is None else projections[index]
        context = attend(tf.nn.bias_add(tf.matmul(x, kernel), bias), block.num_heads)
        x = mpnet_block_after_attention(block, x, context)
        states.append(x)
    return states


def unpadded_mpnet_states(backbone, sequences, attention_groups=ATTENTION_GROUPS, projections=None):
    """Every block's output (first to last) for `sequences`, a `tf.RaggedTensor` [N, (ℓ)] of token ids
    with their special tokens, each as [Σℓ, hidden], the texts' tokens one after another (`to_padded`
    lays them out as a padded batch). Fastest sorted longest first; any order gives the same states.
    The backbone must pass `supports_unpadded_mpnet_states`. `projections`: `mpnet_merged_projections`."""
    sequences = tf.cast(sequences, tf.int32)
    lengths = tf.cast(sequences.row_lengths(), tf.int32)
    token_ids = sequences.flat_values
    positions = _positions(
        token_ids,
        backbone.embeddings.pad_token_id,
        tf.cast(sequences.value_rowids(), tf.int32),
        tf.cast(sequences.row_starts(), tf.int32),
    )
    attend = grouped_attention(lengths, attention_groups, backbone.relative_position_bias.of_length)
    return _mpnet_blocks(backbone, token_ids, positions, attend, projections)


def one_text_mpnet_states(backbone, token_ids, projections=None):
    """`unpadded_mpnet_states` of a single text, `token_ids` int [ℓ] with its special tokens: every
    block's output [ℓ, hidden], without the ragged bookkeeping (the serving graph's requests of one)."""
    token_ids = tf.cast(token_ids, tf.int32)
    bias = backbone.relative_position_bias.of_length(tf.size(token_ids))

    def attend(qkv, heads):
        return one_text_attention(qkv, heads, bias)

    positions = _positions(token_ids, backbone.embeddings.pad_token_id)
    return _mpnet_blocks(backbone, token_ids, positions, attend, projections)
