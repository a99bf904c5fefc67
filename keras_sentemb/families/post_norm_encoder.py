"""The post-layer-norm encoder block of BERT, RoBERTa, XLM-R, DistilBERT and MPNet, written once:

    Q, K, V = x·[W_q W_k W_v] + [b_q b_k b_v]                one matmul, split into heads
    A       = attend(Q, K, V)                                 the layout's (`token_layouts`)
    x       = LN₁(x + A·W_o + b_o);   x = LN₂(x + W₂·act(W₁·x + b₁) + b₂)

`PostNormBlock` names a block's layers, whoever built them (keras-hub's `TransformerEncoder`, through the
BERT family's adapter; MPNet's own layer, whose call is `post_norm_block` over a padded batch);
`post_norm_block` computes it in any token layout, the weights read at call time (LoRA-merged kernels included).
"""

import dataclasses

import tensorflow as tf

from keras_sentemb.families.inference_ops import dense, keras_layer_norm, merged_projection, split_heads


@dataclasses.dataclass(frozen=True)
class PostNormBlock:
    """The layers of one post-layer-norm encoder block.

    Attributes:
        query, key, value: the projections (`EinsumDense` [hidden, heads, size] or `Dense` [hidden, hidden]).
        attention_output: the output projection; `output_input_axes` of its kernel are the inputs (2 for an
            `EinsumDense` [heads, size, hidden], 1 for a `Dense`).
        heads: attention heads.
        attention_norm, feedforward_norm: the two `LayerNormalization`s.
        intermediate, output: the feed-forward `Dense` layers (the first with its activation).
    """

    query: object
    key: object
    value: object
    attention_output: object
    output_input_axes: int
    heads: int
    attention_norm: object
    intermediate: object
    output: object
    feedforward_norm: object

    @property
    def dense_layers(self):
        return [self.query, self.key, self.value, self.attention_output, self.intermediate, self.output]

    def merged_projection(self):
        """Q, K, V as one (kernel [hidden, 3·hidden], bias [3·hidden]) of this moment's weights."""
        return merged_projection([self.query, self.key, self.value])


def _no_dropout(x):
    return x


def post_norm_block(block, x, tokens, projection=None, bias=None, dropouts=None):
    """`block` (a `PostNormBlock`) on states x [..., hidden] laid out as `tokens` says; `projection`: its
    `merged_projection()` computed earlier (kept as variables by the serving module), or None; `bias`: the
    layout's additive attention bias (MPNet's relative positions), or None; `dropouts`: (attention weights,
    attention output, feed-forward output) callables, a Keras layer's dropout in training, or None."""
    weights_dropout, attention_dropout, feedforward_dropout = dropouts or (None, _no_dropout, _no_dropout)
    kernel, projection_bias = block.merged_projection() if projection is None else projection
    qkv = tf.nn.bias_add(tf.matmul(x, tf.cast(kernel, x.dtype)), tf.cast(projection_bias, x.dtype))
    query, key, value = (split_heads(part, block.heads) for part in tf.split(qkv, 3, axis=-1))
    options = {} if weights_dropout is None else {"dropout": weights_dropout}
    context = tokens.attend(query, key, value, bias=bias, **options)
    attended = attention_dropout(dense(block.attention_output, context, block.output_input_axes))
    x = keras_layer_norm(block.attention_norm, x + attended)
    return keras_layer_norm(block.feedforward_norm, x + feedforward_dropout(block.output(block.intermediate(x))))


def post_norm_states(blocks, x, tokens, projections=None, bias=None):
    """Every block's output (first to last) from the embeddings' x; `projections`: one per block, or None."""
    states = []
    for index, block in enumerate(blocks):
        x = post_norm_block(block, x, tokens, None if projections is None else projections[index], bias)
        states.append(x)
    return states
