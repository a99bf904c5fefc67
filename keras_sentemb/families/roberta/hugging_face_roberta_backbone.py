"""HuggingFaceRobertaBackbone: RoBERTa's encoder (Liu et al. 2019) — and XLM-RoBERTa's, the same network —
as a keras-hub `Backbone` that computes what a Hugging Face checkpoint computes.

    x₀ = MPNetEmbedding(token_ids)                     E_tok[id] + E_pos[position], LN, dropout
    xₗ = TransformerEncoder_l(xₗ₋₁, padding_mask)     keras-hub's post-LN block, l = 1 … L

Positions are Hugging Face's `create_position_ids_from_input_ids` (the first token at pad_id + 1, a
padding id at pad_id), which `MPNetEmbedding` computes from the ids. keras-hub's own `RobertaBackbone`
numbers positions 0, 1, … whatever the ids and has no token-type row; this one takes the checkpoint's
position table whole and folds its single token-type row into it (every token adds that row:
E_pos'[p] = E_pos[p] + E_type[0]). The blocks are keras-hub's `TransformerEncoder`, named
`transformer_layer_{l}`, with the config's `hidden_act` and `layer_norm_eps`.

Example:
>>> import numpy as np
>>> backbone = HuggingFaceRobertaBackbone(vocabulary_size=20, num_layers=2, num_heads=2, hidden_dim=8,
...                                       intermediate_dim=16, max_sequence_length=12)
>>> tuple(backbone({"token_ids": np.array([[0, 7, 2, 1]]), "padding_mask": np.array([[1, 1, 1, 0]])}).shape)
(1, 4, 8)
"""

import keras
import keras_hub

from keras_sentemb.families.hidden_activations import hidden_activation
from keras_sentemb.families.roberta_positions import MPNetEmbedding


@keras.saving.register_keras_serializable(package="keras_sentemb")
class HuggingFaceRobertaBackbone(keras_hub.models.Backbone):
    """RoBERTa / XLM-RoBERTa's encoder (see the module docstring).

    Args:
        vocabulary_size: token table rows.
        num_layers: transformer blocks L.
        num_heads: attention heads.
        hidden_dim: the model width.
        intermediate_dim: the feed-forward width.
        dropout: dropout rate (training only).
        max_sequence_length: the longest input, special tokens included (Hugging Face's
            `max_position_embeddings` − `pad_token_id` − 1: 512 for roberta-base).
        pad_token_id: the padding id, which also offsets positions (1).
        layer_norm_epsilon: ε of every layer norm (1e-5).
        hidden_act: Hugging Face's name of the feed-forward activation ("gelu": exact, erf-based).
        dtype: the Keras dtype policy.
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
        self.transformer_layers = [
            keras_hub.layers.TransformerEncoder(
                num_heads=num_heads,
                intermediate_dim=intermediate_dim,
                activation=hidden_activation(hidden_act),
                dropout=dropout,
                layer_norm_epsilon=layer_norm_epsilon,
                kernel_initializer=keras.initializers.TruncatedNormal(stddev=0.02),
                dtype=dtype,
                name=f"transformer_layer_{index}",
            )
            for index in range(num_layers)
        ]

        # === Functional model ===
        token_ids = keras.Input(shape=(None,), dtype="int32", name="token_ids")
        padding_mask = keras.Input(shape=(None,), dtype="int32", name="padding_mask")
        x = self.embeddings(token_ids)
        for block in self.transformer_layers:
            x = block(x, padding_mask=padding_mask)
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
            "layer_norm_epsilon": self.layer_norm_epsilon,
            "hidden_act": self.hidden_act,
        }
