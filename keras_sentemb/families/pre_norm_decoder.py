"""The pre-norm decoder block of Qwen2 and Qwen3 (and the Llama lineage), written once:

    RMS(x)  = x / sqrt(mean(x²) + ε) · γ
    x'      = RMS(x)
    Q = RoPE(N_q(x'·W_q + b_q)),  K = RoPE(N_k(x'·W_k + b_k)),  V = x'·W_v + b_v      per head
    x       = x + attend(Q, K, V; causal)·W_o
    x       = x + W_down(silu(x''·W_gate) ⊙ x''·W_up),   x'' = RMS(x)

N_q, N_k: Qwen3's RMS norm of each head's queries and keys, the identity where a family has none (Qwen2);
b_q, b_k, b_v: Qwen2's projection biases, read from the layers where they have one. The key/value heads are
shared by groups of query heads; the final RMSNorm is applied to the last state (the backbone's output). RoPE
depends on i − j only: texts laid one after another, their positions counted from 0, get the states they get
left-padded in a batch.

`DecoderBlock` names a block's layers, whoever built them (a family's keras-hub adapter reads them from
keras-hub's decoder); `decoder_states` computes the blocks in any token layout of `token_layouts`, the weights
read at call time (LoRA-merged kernels included); `decoder_last_token_states` computes the last block at each
row's last real token only (last-token pooling); `keras_hub_decoder_math` is a keras-hub decoder family's
`computes` / `states` / `last_token_states` given its backbone class and its adapter (Qwen2, Qwen3).

>>> last_real_positions(tf.constant([[0, 1, 1], [1, 1, 0]])).numpy().tolist()
[2, 1]
"""

import dataclasses

import tensorflow as tf

from keras_sentemb.families.inference_ops import (
    MASKED,
    dense,
    float32_and_unquantised,
    rms_norm,
    rotary_tables_of,
    rotate,
    split_heads,
    token_rows,
)
from keras_sentemb.families.token_layouts import attention


@dataclasses.dataclass(frozen=True)
class DecoderBlock:
    """The layers of one pre-norm decoder block.

    Attributes:
        input_norm, feedforward_norm: the two RMS norms (a layer with `epsilon` and `scale`).
        query, key, value, attention_output: the projections (`EinsumDense`; biases read where present).
        query_norm, key_norm: the per-head RMS norms of queries and keys (Qwen3's), or None.
        rotary: keras-hub's `RotaryEmbedding` of the block (its base and scaling factor).
        query_heads, key_value_heads, head_dim: the attention's shape.
        gate, up, down: the SwiGLU feed-forward `Dense` layers.
    """

    input_norm: object
    query: object
    key: object
    value: object
    attention_output: object
    rotary: object
    query_heads: int
    key_value_heads: int
    head_dim: int
    feedforward_norm: object
    gate: object
    up: object
    down: object
    query_norm: object = None
    key_norm: object = None

    @property
    def dense_layers(self):
        return [self.query, self.key, self.value, self.attention_output, self.gate, self.up, self.down]


def _norm(layer, x):
    return x if layer is None else rms_norm(x, layer.epsilon, layer.scale)


def _queries_keys_values(block, x, positions):
    normed = _norm(block.input_norm, x)
    query = _norm(block.query_norm, split_heads(dense(block.query, normed), block.query_heads))
    key = _norm(block.key_norm, split_heads(dense(block.key, normed), block.key_value_heads))
    value = split_heads(dense(block.value, normed), block.key_value_heads)
    cos, sin = rotary_tables_of(block.rotary, positions, block.head_dim)
    return rotate(query, cos, sin), rotate(key, cos, sin), value


def _feedforward(block, x):
    normed = _norm(block.feedforward_norm, x)
    return x + dense(block.down, tf.nn.silu(dense(block.gate, normed)) * dense(block.up, normed))


def decoder_block(block, x, tokens, positions):
    """`block` (a `DecoderBlock`) on states x [..., hidden] laid out as `tokens` says, causal attention."""
    query, key, value = _queries_keys_values(block, x, positions)
    context = tokens.attend(query, key, value, visible=(None, 0))
    return _feedforward(block, x + dense(block.attention_output, context, 2))


def decoder_states(blocks, x, tokens, final_norm):
    """Every block's output (first to last, the last through `final_norm`, an RMS norm layer) from the token
    embeddings x, for `tokens` (a layout of `token_layouts`)."""
    positions = tokens.positions()
    states = []
    for block in blocks:
        x = decoder_block(block, x, tokens, positions)
        states.append(x)
    states[-1] = _norm(final_norm, states[-1])
    return states


def last_real_positions(padding_mask):
    """[B] int32: each row's last position whose mask is 1 (left and right padding alike; 0 if none)."""
    length = tf.shape(padding_mask)[1]
    numbered = tf.cast(padding_mask, tf.int32) * tf.expand_dims(tf.range(length) + 1, 0)
    return tf.maximum(tf.reduce_max(numbered, axis=1) - 1, 0)


def decoder_last_token_states(blocks, x, tokens, final_norm):
    """`decoder_states` of a padded batch (`PaddedTokens`) whose last block computes each row's last real token
    alone (its attention against every key, its feed-forward on one row): the last state is [B, 1, hidden],
    for last-token pooling with a mask of ones. A block is 1/L of the model (Qwen3-Embedding-0.6B: 28)."""
    positions = tokens.positions()
    states = []
    for block in blocks[:-1]:
        x = decoder_block(block, x, tokens, positions)
        states.append(x)
    block = blocks[-1]
    last = tf.expand_dims(last_real_positions(tokens.padding_mask), 1)  # [B, 1]
    query, key, value = _queries_keys_values(block, x, positions)
    query = tf.gather(query, last, batch_dims=1)  # [B, 1, heads, D]
    seen = tf.logical_and(tf.expand_dims(tf.range(tokens.length), 0) <= last, tf.cast(tokens.padding_mask, tf.bool))
    bias = tf.expand_dims(tf.expand_dims(1.0 - tf.cast(seen, tf.float32), 1), 1) * MASKED  # [B, 1, 1, T]
    context = attention(query, key, value, bias=bias)
    x = _feedforward(block, tf.gather(x, last, batch_dims=1) + dense(block.attention_output, context, 2))
    states.append(_norm(final_norm, x))
    return states


def keras_hub_decoder_math(backbone_class, decoder_blocks):
    """`(computes, states, last_token_states)` of a family whose backbone is the keras-hub decoder `backbone_class`
    and whose adapter `decoder_blocks(backbone)` reads its blocks as `DecoderBlock`s (None where one is not): what
    differs between Qwen2 and Qwen3 is the class and the adapter, the math is this module's.

    - `computes(backbone)`: a `backbone_class` whose blocks the adapter reads, in float32, unquantised;
    - `states(backbone, tokens, token_table=None, …)`: every block's output for `tokens` (a layout of
      `token_layouts`), the last through the final RMSNorm; `token_table` replaces the token table;
    - `last_token_states(backbone, tokens, token_table=None, …)`: `states` of a padded batch whose last block
      computes each row's last real token alone ([B, 1, hidden]).
    """

    def computes(backbone):
        if not isinstance(backbone, backbone_class):
            return False
        blocks = decoder_blocks(backbone)
        return blocks is not None and float32_and_unquantised(
            backbone, [layer for block in blocks for layer in block.dense_layers]
        )

    def states(backbone, tokens, token_table=None, max_positions=None, projections=None):
        x = token_rows(backbone.token_embedding.embeddings, tokens.ids, token_table)
        return decoder_states(decoder_blocks(backbone), x, tokens, backbone.layer_norm)

    def last_token_states(backbone, tokens, token_table=None, max_positions=None):
        x = token_rows(backbone.token_embedding.embeddings, tokens.ids, token_table)
        return decoder_last_token_states(decoder_blocks(backbone), x, tokens, backbone.layer_norm)

    return computes, states, last_token_states
