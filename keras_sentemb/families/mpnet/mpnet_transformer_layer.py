"""MPNetTransformerLayer: one post-layer-norm transformer block whose attention adds a position bias.

    scores    = Q·Kᵀ / √d + bias + M                             bias: `RelativePositionBias`, [1, H, T, T]
    x         = LN₁(x + softmax(scores)·V·W_o + b_o)
    x         = LN₂(x + act(x·W₁ + b₁)·W₂ + b₂)

as Hugging Face's `MPNetLayer` computes it (dropout after the attention probabilities, the attention
output and the feed-forward output, at training only): `post_norm_encoder.post_norm_block`, every runtime's
math, over a padded batch. The dense layers carry keras-hub's names
(`query`, `key`, `value`, `attention_output`, `feedforward_intermediate_dense`,
`feedforward_output_dense`), so `Backbone.enable_lora` and `ALL_TRANSFORMER_DENSE_LAYERS` find them.

Example:
>>> import numpy as np
>>> block = MPNetTransformerLayer(num_heads=2, intermediate_dim=16)
>>> x, bias = np.zeros((1, 3, 8), "float32"), np.zeros((1, 2, 3, 3), "float32")
>>> tuple(block(x, position_bias=bias, padding_mask=np.array([[1, 1, 0]])).shape)
(1, 3, 8)
"""

import keras
from keras import ops

from keras_sentemb.families.post_norm_encoder import PostNormBlock, post_norm_block
from keras_sentemb.families.token_layouts import PaddedTokens


@keras.saving.register_keras_serializable(package="keras_sentemb")
class MPNetTransformerLayer(keras.layers.Layer):
    """One MPNet block (see the module docstring).

    Args:
        num_heads: attention heads H; the hidden size must be a multiple of H.
        intermediate_dim: the feed-forward width.
        activation: the feed-forward activation (Hugging Face's `hidden_act`; "gelu" is the exact,
            erf-based GELU).
        dropout: the dropout rate of attention probabilities and residual branches.
        layer_norm_epsilon: ε of both layer norms.
    """

    def __init__(self, num_heads, intermediate_dim, activation="gelu", dropout=0.1, layer_norm_epsilon=1e-5, **kwargs):
        super().__init__(**kwargs)
        self.num_heads = int(num_heads)
        self.intermediate_dim = int(intermediate_dim)
        self.activation = keras.activations.get(activation)
        self.dropout = float(dropout)
        self.layer_norm_epsilon = float(layer_norm_epsilon)

    def build(self, input_shape):
        hidden = input_shape[-1]
        if hidden % self.num_heads:
            raise ValueError(f"MPNetTransformerLayer: hidden size {hidden} is not a multiple of {self.num_heads} heads")
        self.head_dim = hidden // self.num_heads

        def dense(units, name, activation=None):
            layer = keras.layers.Dense(
                units,
                activation=activation,
                kernel_initializer=keras.initializers.TruncatedNormal(stddev=0.02),
                dtype=self.dtype_policy,
                name=name,
            )
            return layer

        self.query = dense(hidden, "query")
        self.key = dense(hidden, "key")
        self.value = dense(hidden, "value")
        self.attention_output = dense(hidden, "attention_output")
        self.feedforward_intermediate_dense = dense(
            self.intermediate_dim, "feedforward_intermediate_dense", self.activation
        )
        self.feedforward_output_dense = dense(hidden, "feedforward_output_dense")
        for layer in (self.query, self.key, self.value, self.feedforward_intermediate_dense):
            layer.build(input_shape)
        self.attention_output.build(input_shape)
        self.feedforward_output_dense.build((*input_shape[:-1], self.intermediate_dim))
        norm = dict(epsilon=self.layer_norm_epsilon, dtype=self.dtype_policy)
        self.attention_layer_norm = keras.layers.LayerNormalization(name="attention_layer_norm", **norm)
        self.feedforward_layer_norm = keras.layers.LayerNormalization(name="feedforward_layer_norm", **norm)
        self.attention_layer_norm.build(input_shape)
        self.feedforward_layer_norm.build(input_shape)
        # three sublayers, in this order: a zoo artifact finds each sublayer's assets by its position
        self.attention_dropout = keras.layers.Dropout(self.dropout, dtype=self.dtype_policy)
        self.output_dropout = keras.layers.Dropout(self.dropout, dtype=self.dtype_policy)
        self.feedforward_dropout = keras.layers.Dropout(self.dropout, dtype=self.dtype_policy)

    def call(self, x, position_bias, padding_mask=None, training=None):
        if padding_mask is None:
            padding_mask = ops.ones(ops.shape(x)[:2], "int32")
        return post_norm_block(
            mpnet_block(self),
            x,
            PaddedTokens.of_mask(padding_mask),
            bias=lambda length: position_bias,
            dropouts=tuple(
                lambda y, layer=layer: layer(y, training=training)
                for layer in (self.attention_dropout, self.output_dropout, self.feedforward_dropout)
            ),
        )

    def compute_output_shape(self, input_shape):
        return input_shape

    def get_config(self):
        return {
            **super().get_config(),
            "num_heads": self.num_heads,
            "intermediate_dim": self.intermediate_dim,
            "activation": keras.activations.serialize(self.activation),
            "dropout": self.dropout,
            "layer_norm_epsilon": self.layer_norm_epsilon,
        }


def mpnet_block(layer):
    """The `PostNormBlock` of an `MPNetTransformerLayer` (its own public layers)."""
    return PostNormBlock(
        query=layer.query,
        key=layer.key,
        value=layer.value,
        attention_output=layer.attention_output,
        output_input_axes=1,
        heads=layer.num_heads,
        attention_norm=layer.attention_layer_norm,
        intermediate=layer.feedforward_intermediate_dense,
        output=layer.feedforward_output_dense,
        feedforward_norm=layer.feedforward_layer_norm,
    )
