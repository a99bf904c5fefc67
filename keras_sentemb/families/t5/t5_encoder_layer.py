"""T5EncoderLayer: one T5 encoder block as a Keras layer, its math `t5_block.t5_block` (the runtimes' too)."""

import keras

from keras_sentemb.families.hidden_activations import hidden_activation
from keras_sentemb.families.t5.t5_block import t5_block
from keras_sentemb.families.token_layouts import PaddedTokens


@keras.saving.register_keras_serializable(package="keras_sentemb")
class T5EncoderLayer(keras.layers.Layer):
    """A pre-norm T5 encoder block (see `t5_block`): self-attention with an additive relative position bias and
    no scaling, then a ReLU or gated feed-forward, each with T5's norm before it and a residual after.

    Args:
        num_heads: attention heads.
        key_value_dim: each head's size (T5's `d_kv`; heads × d_kv need not equal the model width).
        intermediate_dim: the feed-forward width (`d_ff`).
        activation: Hugging Face's activation name (`dense_act_fn`: "relu", "gelu_new", …).
        gated: the feed-forward multiplies act(x·W_i0) by x·W_i1 (T5 v1.1's "gated-gelu").
        dropout: dropout rate on each residual branch (training only).
        layer_norm_epsilon: ε of T5's norms.

    Example:
    >>> import numpy as np
    >>> layer = T5EncoderLayer(num_heads=2, key_value_dim=4, intermediate_dim=8, gated=True)
    >>> tuple(layer(np.ones((1, 3, 6), "float32"), position_bias=np.zeros((1, 2, 3, 3), "float32")).shape)
    (1, 3, 6)
    """

    def __init__(
        self,
        num_heads,
        key_value_dim,
        intermediate_dim,
        activation="relu",
        gated=False,
        dropout=0.1,
        layer_norm_epsilon=1e-6,
        **kwargs,
    ):
        super().__init__(**kwargs)
        self.num_heads = int(num_heads)
        self.key_value_dim = int(key_value_dim)
        self.intermediate_dim = int(intermediate_dim)
        self.activation_name = activation
        self.activation = hidden_activation(activation)
        self.gated = bool(gated)
        self.dropout = float(dropout)
        self.layer_norm_epsilon = float(layer_norm_epsilon)

    def build(self, input_shape):
        width = input_shape[-1]
        inner = self.num_heads * self.key_value_dim
        initializer = keras.initializers.TruncatedNormal(stddev=0.02)

        def dense(units, name, inputs):
            layer = keras.layers.Dense(
                units, use_bias=False, kernel_initializer=initializer, dtype=self.dtype_policy, name=name
            )
            layer.build((*input_shape[:-1], inputs))
            return layer

        def norm(name):
            layer = keras.layers.RMSNormalization(epsilon=self.layer_norm_epsilon, dtype=self.dtype_policy, name=name)
            layer.build(input_shape)
            return layer

        self.attention_norm = norm("attention_norm")
        self.query, self.key, self.value = (dense(inner, name, width) for name in ("query", "key", "value"))
        self.attention_output = dense(width, "attention_output", inner)
        self.feedforward_norm = norm("feedforward_norm")
        self.feedforward_intermediate_dense = dense(self.intermediate_dim, "feedforward_intermediate_dense", width)
        if self.gated:
            self.feedforward_gate_dense = dense(self.intermediate_dim, "feedforward_gate_dense", width)
        self.feedforward_output_dense = dense(width, "feedforward_output_dense", self.intermediate_dim)
        self.dropout_layer = keras.layers.Dropout(self.dropout, dtype=self.dtype_policy)

    def call(self, x, position_bias, padding_mask=None, training=None):
        if padding_mask is None:
            padding_mask = keras.ops.ones(keras.ops.shape(x)[:2], "int32")
        tokens = PaddedTokens(padding_mask, padding_mask)  # the layout only: a block reads no token ids
        return t5_block(
            self, x, tokens, lambda length: position_bias, lambda y: self.dropout_layer(y, training=training)
        )

    def compute_output_shape(self, input_shape):
        return input_shape

    def get_config(self):
        return {
            **super().get_config(),
            "num_heads": self.num_heads,
            "key_value_dim": self.key_value_dim,
            "intermediate_dim": self.intermediate_dim,
            "activation": self.activation_name,
            "gated": self.gated,
            "dropout": self.dropout,
            "layer_norm_epsilon": self.layer_norm_epsilon,
        }
