"""T5EncoderBackbone: the encoder of T5 (Raffel et al. 2020) as a keras-hub `Backbone` that computes what
Hugging Face's `T5EncoderModel` computes (sentence-t5, GTR).

    x₀ = E[id]                                           no position embeddings, no scaling
    bias = RelativePositionBias(T)                       one table of [buckets, heads], shared by every block
    xₗ = T5EncoderLayer_l(xₗ₋₁, bias, padding_mask)     pre-norm blocks (`t5_block`), l = 1 … L
    y  = N(x_L)                                          T5's final norm

keras-hub's `T5Backbone` is the encoder-decoder (a decoder an embedding never runs); this is the encoder alone,
its blocks `T5EncoderLayer`s whose math is the runtimes' (`t5_block`).

Example:
>>> import numpy as np
>>> backbone = T5EncoderBackbone(vocabulary_size=20, num_layers=2, num_heads=2, hidden_dim=8, key_value_dim=4,
...                              intermediate_dim=16, max_sequence_length=12)
>>> tuple(backbone({"token_ids": np.array([[5, 7, 1, 0]]), "padding_mask": np.array([[1, 1, 1, 0]])}).shape)
(1, 4, 8)
"""

import keras
import keras_hub

from keras_sentemb.families.relative_position_bias import RelativePositionBias
from keras_sentemb.families.t5.t5_encoder_layer import T5EncoderLayer


@keras.saving.register_keras_serializable(package="keras_sentemb")
class T5EncoderBackbone(keras_hub.models.Backbone):
    """T5's encoder (see the module docstring).

    Args:
        vocabulary_size: token table rows.
        num_layers: encoder blocks L.
        num_heads: attention heads.
        hidden_dim: the model width (`d_model`).
        key_value_dim: each head's size (`d_kv`).
        intermediate_dim: the feed-forward width (`d_ff`).
        activation: Hugging Face's name of the feed-forward activation ("relu", "gelu_new").
        gated: a gated feed-forward (T5 v1.1's "gated-gelu").
        dropout: dropout rate (training only).
        max_sequence_length: the longest input the relative position table covers (the tokenizer's limit).
        relative_attention_num_buckets: buckets of the position bias (32).
        relative_attention_max_distance: distance from which pairs share a bucket (128).
        layer_norm_epsilon: ε of every norm (1e-6).
        dtype: the Keras dtype policy.
    """

    def __init__(
        self,
        vocabulary_size,
        num_layers,
        num_heads,
        hidden_dim,
        key_value_dim,
        intermediate_dim,
        activation="relu",
        gated=False,
        dropout=0.1,
        max_sequence_length=512,
        relative_attention_num_buckets=32,
        relative_attention_max_distance=128,
        layer_norm_epsilon=1e-6,
        dtype=None,
        **kwargs,
    ):
        # === Layers ===
        self.token_embedding = keras.layers.Embedding(
            vocabulary_size,
            hidden_dim,
            embeddings_initializer=keras.initializers.RandomNormal(stddev=1.0),
            dtype=dtype,
            name="token_embedding",
        )
        self.embeddings_dropout = keras.layers.Dropout(dropout, dtype=dtype, name="embeddings_dropout")
        self.relative_position_bias = RelativePositionBias(
            relative_attention_num_buckets,
            num_heads,
            relative_attention_max_distance,
            max_length=max_sequence_length,
            dtype=dtype,
            name="relative_position_bias",
        )
        self.transformer_layers = [
            T5EncoderLayer(
                num_heads,
                key_value_dim,
                intermediate_dim,
                activation=activation,
                gated=gated,
                dropout=dropout,
                layer_norm_epsilon=layer_norm_epsilon,
                dtype=dtype,
                name=f"transformer_layer_{index}",
            )
            for index in range(num_layers)
        ]
        self.layer_norm = keras.layers.RMSNormalization(epsilon=layer_norm_epsilon, dtype=dtype, name="final_norm")

        # === Functional model ===
        token_ids = keras.Input(shape=(None,), dtype="int32", name="token_ids")
        padding_mask = keras.Input(shape=(None,), dtype="int32", name="padding_mask")
        x = self.embeddings_dropout(self.token_embedding(token_ids))
        bias = self.relative_position_bias(x)
        for block in self.transformer_layers:
            x = block(x, position_bias=bias, padding_mask=padding_mask)
        x = self.layer_norm(x)
        super().__init__(
            inputs={"token_ids": token_ids, "padding_mask": padding_mask}, outputs=x, dtype=dtype, **kwargs
        )

        # === Config ===
        self.vocabulary_size = vocabulary_size
        self.num_layers = num_layers
        self.num_heads = num_heads
        self.hidden_dim = hidden_dim
        self.key_value_dim = key_value_dim
        self.intermediate_dim = intermediate_dim
        self.activation = activation
        self.gated = gated
        self.dropout = dropout
        self.max_sequence_length = max_sequence_length
        self.relative_attention_num_buckets = relative_attention_num_buckets
        self.relative_attention_max_distance = relative_attention_max_distance
        self.layer_norm_epsilon = layer_norm_epsilon

    def get_config(self):
        return {
            **super().get_config(),
            "vocabulary_size": self.vocabulary_size,
            "num_layers": self.num_layers,
            "num_heads": self.num_heads,
            "hidden_dim": self.hidden_dim,
            "key_value_dim": self.key_value_dim,
            "intermediate_dim": self.intermediate_dim,
            "activation": self.activation,
            "gated": self.gated,
            "dropout": self.dropout,
            "max_sequence_length": self.max_sequence_length,
            "relative_attention_num_buckets": self.relative_attention_num_buckets,
            "relative_attention_max_distance": self.relative_attention_max_distance,
            "layer_norm_epsilon": self.layer_norm_epsilon,
        }
