"""RoBERTa's positions, shared by RoBERTa, XLM-R and MPNet: `MPNetEmbedding` (token + position embeddings,
positions counted from the ids) and `roberta_embedding_output`, the same at inference in any token layout.

    position(t) = pad_id + Σ_{s ≤ t} [id_s ≠ pad_id]     for a token that is not `pad_id`, else pad_id
    e_t         = Dropout(LN(E_tok[id_t] + E_pos[position(t)]))

(Hugging Face's `create_position_ids_from_input_ids`: the first token is at pad_id + 1, padding
rows point at the padding position, whose embedding is never used by a real token.)

Example:
>>> import numpy as np
>>> embedding = MPNetEmbedding(vocabulary_size=10, hidden_dim=4, max_positions=8, pad_token_id=1)
>>> tuple(embedding(np.array([[0, 5, 2, 1, 1]])).shape)
(1, 5, 4)
>>> position_ids(np.array([[0, 5, 2, 1, 1]]), pad_token_id=1).numpy().tolist()
[[2, 3, 4, 1, 1]]
"""

import keras
import tensorflow as tf
from keras import ops

from keras_sentemb.families.inference_ops import keras_layer_norm, token_rows


def position_ids(token_ids, pad_token_id):
    """The position index of every token of `token_ids` [batch, T] (see the module docstring)."""
    real = ops.cast(ops.not_equal(token_ids, pad_token_id), "int32")
    return ops.cumsum(real, axis=1) * real + pad_token_id


@keras.saving.register_keras_serializable(package="keras_sentemb")
class MPNetEmbedding(keras.layers.Layer):
    """Embeds int token ids [batch, T] into [batch, T, hidden_dim] (see the module docstring).

    Args:
        vocabulary_size: rows of the token table.
        hidden_dim: the embedding width.
        max_positions: rows of the position table (Hugging Face's `max_position_embeddings`,
            which counts the `pad_token_id + 1` positions no real token takes).
        pad_token_id: the padding id, also the position offset.
        layer_norm_epsilon: ε of the layer norm.
        dropout: dropout rate after it (training only).
    """

    def __init__(
        self, vocabulary_size, hidden_dim, max_positions, pad_token_id=1, layer_norm_epsilon=1e-5, dropout=0.1, **kwargs
    ):
        super().__init__(**kwargs)
        self.vocabulary_size = int(vocabulary_size)
        self.hidden_dim = int(hidden_dim)
        self.max_positions = int(max_positions)
        self.pad_token_id = int(pad_token_id)
        self.layer_norm_epsilon = float(layer_norm_epsilon)
        self.dropout = float(dropout)
        initializer = keras.initializers.TruncatedNormal(stddev=0.02)
        self.token_embedding = keras.layers.Embedding(
            vocabulary_size,
            hidden_dim,
            embeddings_initializer=initializer,
            dtype=self.dtype_policy,
            name="token_embedding",
        )
        self.position_embedding = keras.layers.Embedding(
            max_positions,
            hidden_dim,
            embeddings_initializer=initializer,
            dtype=self.dtype_policy,
            name="position_embedding",
        )
        self.layer_norm = keras.layers.LayerNormalization(
            epsilon=layer_norm_epsilon, dtype=self.dtype_policy, name="embeddings_layer_norm"
        )
        self.dropout_layer = keras.layers.Dropout(dropout, dtype=self.dtype_policy)

    def build(self, input_shape):
        self.token_embedding.build(input_shape)
        self.position_embedding.build(input_shape)
        self.layer_norm.build((*input_shape, self.hidden_dim))

    def call(self, token_ids, training=None):
        positions = position_ids(token_ids, self.pad_token_id)
        x = self.token_embedding(token_ids) + self.position_embedding(positions)
        return self.dropout_layer(self.layer_norm(x), training=training)

    def compute_output_shape(self, input_shape):
        return (*input_shape, self.hidden_dim)

    def get_config(self):
        return {
            **super().get_config(),
            "vocabulary_size": self.vocabulary_size,
            "hidden_dim": self.hidden_dim,
            "max_positions": self.max_positions,
            "pad_token_id": self.pad_token_id,
            "layer_norm_epsilon": self.layer_norm_epsilon,
            "dropout": self.dropout,
        }


def roberta_embedding_output(embeddings, tokens, token_table=None, max_positions=None):
    """An `MPNetEmbedding`'s output at inference, LN(E_token[id] + E_position[p]) with RoBERTa's positions p,
    in the layout of `tokens`; `token_table` replaces the token table, `max_positions` keeps the position
    rows a tokenizer packing that many tokens can reach (pad + 1 + max_positions)."""
    pad = embeddings.pad_token_id
    real = tf.cast(tf.not_equal(tokens.ids, pad), tf.int32)
    positions = tokens.running_count(real) * real + pad
    table = embeddings.position_embedding.embeddings
    if max_positions is not None:
        table = table[: pad + 1 + max_positions]
    x = token_rows(embeddings.token_embedding.embeddings, tokens.ids, token_table) + tf.gather(
        tf.convert_to_tensor(table), positions
    )
    return keras_layer_norm(embeddings.layer_norm, x)
