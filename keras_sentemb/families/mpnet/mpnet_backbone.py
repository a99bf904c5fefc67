"""MPNetBackbone: MPNet's encoder (Song et al. 2020) as a keras-hub `Backbone`.

    x₀  = MPNetEmbedding(token_ids)                         token + RoBERTa-style position embeddings, LN
    b   = RelativePositionBias(x₀)                          [1, H, T, T], one table shared by all layers
    xₗ  = MPNetTransformerLayer_l(xₗ₋₁, b, padding_mask)    post-LN blocks, l = 1 … L

The output is the last block's token states [batch, T, hidden_dim]; the blocks are named
`transformer_layer_{l}` as keras-hub's are, so `transformer_layer_states`, `SentenceEncoder`, LoRA
and every pooling work on it as on BERT. keras-hub 0.32 has no MPNet; this one loads the weights of a
Hugging Face / sentence-transformers folder by tensor name (`load_mpnet_weights`), e.g.
all-mpnet-base-v2 (12 layers, hidden 768, 12 heads, 32 buckets, vocabulary 30,527).

Example:
>>> import numpy as np
>>> backbone = MPNetBackbone(vocabulary_size=20, num_layers=2, num_heads=2, hidden_dim=8,
...                          intermediate_dim=16, max_sequence_length=12)
>>> tuple(backbone({"token_ids": np.array([[0, 7, 2, 1]]), "padding_mask": np.array([[1, 1, 1, 0]])}).shape)
(1, 4, 8)
"""

import keras
import keras_hub

from keras_sentemb.families.hidden_activations import hidden_activation
from keras_sentemb.families.mpnet.mpnet_transformer_layer import MPNetTransformerLayer
from keras_sentemb.families.relative_position_bias import RelativePositionBias
from keras_sentemb.families.roberta_positions import MPNetEmbedding


@keras.saving.register_keras_serializable(package="keras_sentemb")
class MPNetBackbone(keras_hub.models.Backbone):
    """MPNet's encoder (see the module docstring).

    Args:
        vocabulary_size: token table rows.
        num_layers: transformer blocks L.
        num_heads: attention heads H.
        hidden_dim: the model width.
        intermediate_dim: the feed-forward width.
        dropout: dropout rate (training only).
        max_sequence_length: the longest input, special tokens included (Hugging Face's
            `max_position_embeddings` − `pad_token_id` − 1: 512 for all-mpnet-base-v2).
        pad_token_id: the padding id, which also offsets positions (1).
        relative_attention_num_buckets: buckets of the position bias (32).
        relative_attention_max_distance: distance from which pairs share a bucket (128).
        layer_norm_epsilon: ε of every layer norm (1e-5).
        hidden_act: Hugging Face's name of the feed-forward activation ("gelu": exact, erf-based).
        dtype: the Keras dtype policy (e.g. "mixed_bfloat16").
    """

    def __init__(
        self,
        vocabulary_size,
        num_layers,
        num_heads,
        hidden_dim,
        intermediate_dim,
        dropout=0.1,
        max_sequence_length=512,
        pad_token_id=1,
        relative_attention_num_buckets=32,
        relative_attention_max_distance=128,
        layer_norm_epsilon=1e-5,
        hidden_act="gelu",
        dtype=None,
        **kwargs,
    ):
        # === Layers ===
        self.embeddings = MPNetEmbedding(
            vocabulary_size,
            hidden_dim,
            max_positions=max_sequence_length + pad_token_id + 1,
            pad_token_id=pad_token_id,
            layer_norm_epsilon=layer_norm_epsilon,
            dropout=dropout,
            dtype=dtype,
            name="embeddings",
        )
        self.token_embedding = self.embeddings.token_embedding
        self.relative_position_bias = RelativePositionBias(
            relative_attention_num_buckets,
            num_heads,
            relative_attention_max_distance,
            max_length=max_sequence_length,
            dtype=dtype,
            name="relative_position_bias",
        )
        self.transformer_layers = [
            MPNetTransformerLayer(
                num_heads,
                intermediate_dim,
                activation=hidden_activation(hidden_act),
                dropout=dropout,
                layer_norm_epsilon=layer_norm_epsilon,
                dtype=dtype,
                name=f"transformer_layer_{index}",
            )
            for index in range(num_layers)
        ]

        # === Functional model ===
        token_ids = keras.Input(shape=(None,), dtype="int32", name="token_ids")
        padding_mask = keras.Input(shape=(None,), dtype="int32", name="padding_mask")
        x = self.embeddings(token_ids)
        bias = self.relative_position_bias(x)
        for block in self.transformer_layers:
            x = block(x, position_bias=bias, padding_mask=padding_mask)
        super().__init__(
            inputs={"token_ids": token_ids, "padding_mask": padding_mask}, outputs=x, dtype=dtype, **kwargs
        )

        # === Config ===
        self.vocabulary_size = vocabulary_size
        self.num_layers = num_layers
        self.num_heads = num_heads
        self.hidden_dim = hidden_dim
        self.intermediate_dim = intermediate_dim
        self.dropout = dropout
        self.max_sequence_length = max_sequence_length
        self.pad_token_id = pad_token_id
        self.relative_attention_num_buckets = relative_attention_num_buckets
        self.relative_attention_max_distance = relative_attention_max_distance
        self.layer_norm_epsilon = layer_norm_epsilon
        self.hidden_act = hidden_act
        self.cls_token_index = 0

    def get_config(self):
        return {
            **super().get_config(),
            "vocabulary_size": self.vocabulary_size,
            "num_layers": self.num_layers,
            "num_heads": self.num_heads,
            "hidden_dim": self.hidden_dim,
            "intermediate_dim": self.intermediate_dim,
            "dropout": self.dropout,
            "max_sequence_length": self.max_sequence_length,
            "pad_token_id": self.pad_token_id,
            "relative_attention_num_buckets": self.relative_attention_num_buckets,
            "relative_attention_max_distance": self.relative_attention_max_distance,
            "layer_norm_epsilon": self.layer_norm_epsilon,
            "hidden_act": self.hidden_act,
        }
