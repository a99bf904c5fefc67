"""SpladePooling: one weight a vocabulary entry from the masked-LM logits of every token (SPLADE)."""

import keras
import tensorflow as tf

SPLADE_POOLINGS = ("max", "sum")
SPLADE_ACTIVATIONS = ("relu", "log1p_relu")


def splade_weights(logits, padding_mask, pooling="max", activation="relu"):
    """SPLADE's pooled weights [batch, vocabulary] of masked-LM `logits` [batch, tokens, vocabulary] (float32): the
    formula of `SpladePooling`, written once; the layer applies it a chunk of positions at a time, a fused runtime's
    graph (`SparseEncoder.openvino_graph_fn`) to a whole batch bounded by its token budget.

    >>> import numpy as np
    >>> splade_weights(tf.constant([[[1.0, -1.0], [2.0, 0.5]]]), tf.constant([[1, 1]])).numpy().round(4).tolist()
    [[1.0986, 0.4055]]
    """
    mask = tf.expand_dims(tf.cast(padding_mask, logits.dtype), -1)
    if pooling == "max":  # the activation is monotone: max_t f(x_t) = f(max_t x_t), applied to [batch, vocabulary]
        return splade_term_weights(tf.reduce_max(logits * mask, axis=1), activation)
    return tf.reduce_sum(splade_term_weights(logits, activation) * tf.cast(mask, tf.float32), axis=1)


def splade_term_weights(logits, activation="relu"):
    """Each token's weights before pooling, float32 of masked-LM `logits` of any shape [..., vocabulary]:
    log(1 + relu(x)) ("relu") or log(1 + log(1 + relu(x))) ("log1p_relu").

    >>> splade_term_weights(tf.constant([[1.0, -1.0]]), "log1p_relu").numpy().round(4).tolist()
    [[0.5266, 0.0]]
    """
    weights = tf.math.log1p(tf.nn.relu(tf.cast(logits, tf.float32)))
    return tf.math.log1p(weights) if activation == "log1p_relu" else weights


def splade_weights_of_flat_tokens(
    head, states, text_of_token, texts, vocabulary, pooling="max", activation="relu", chunk_tokens=256
):
    """`splade_weights` of texts laid one after another (the unpadded layout, `families.token_layouts.FlatTokens`):
    `states` [Σℓ, hidden] of every real token, `text_of_token` int [Σℓ] the text each belongs to (0 … texts − 1).
    The head's logits are computed `chunk_tokens` tokens at a time and pooled into the texts' rows at once
    (a segment max or sum), so at most [chunk_tokens, vocabulary] logits are held: no padding, and no
    [tokens, vocabulary] of a whole batch. Returns float32 [texts, vocabulary].

    >>> head = lambda h: tf.concat([h, -h], axis=-1)  # logits [x, −x] of a 1-wide state
    >>> states, owner = tf.constant([[1.0], [2.0], [3.0]]), tf.constant([0, 0, 1])
    >>> splade_weights_of_flat_tokens(head, states, owner, 2, 2, chunk_tokens=2).numpy().round(4).tolist()
    [[1.0986, 0.0], [1.3863, 0.0]]
    """
    segment_pool = tf.math.unsorted_segment_max if pooling == "max" else tf.math.unsorted_segment_sum
    combine = tf.maximum if pooling == "max" else tf.add
    tokens = tf.shape(states)[0]

    def body(start, pooled):
        logits, owner = head(states[start : start + chunk_tokens]), text_of_token[start : start + chunk_tokens]
        if pooling == "max":  # pooled before the (monotone) activation, as `splade_weights`: an empty segment's
            part = splade_term_weights(segment_pool(logits, owner, texts), activation)  # lowest float gives 0
        else:
            part = segment_pool(splade_term_weights(logits, activation), owner, texts)
        return start + chunk_tokens, combine(pooled, part)

    _, pooled = tf.while_loop(
        lambda start, _: start < tokens,
        body,
        (tf.constant(0), tf.zeros(tf.stack([texts, vocabulary]), tf.float32)),
        shape_invariants=(tf.TensorShape([]), tf.TensorShape([None, None])),
    )
    return pooled


@keras.saving.register_keras_serializable(package="keras_sentemb")
class SpladePooling(keras.layers.Layer):
    """SPLADE's lexical weights of a text from its token states (Formal et al. 2021, 2022):

        w_j = pool_i  m_i · log(1 + relu(logits_ij))          (activation "relu")
        w_j = pool_i  m_i · log(1 + log(1 + relu(logits_ij)))  (activation "log1p_relu", OpenSearch's models)

    with logits = head(h) [tokens, vocabulary] (a `MaskedLanguageModelHead`), m the padding mask and pool the
    max (SPLADE v2 and later) or the sum (SPLADE v1) over tokens: sentence-transformers' `SpladePooling`. Every
    weight is ≥ 0 and most are 0, so the vector is sparse.

    The logits are computed `chunk_tokens` positions at a time and reduced at once, so a batch never holds
    [batch, tokens, vocabulary] at once: 32 texts × 512 tokens × 30,522 entries would be 2 GB in float32; with
    16 positions a chunk it is 62 MB.

    Args:
        head: the layer that maps states [batch, tokens, hidden] to logits [batch, tokens, vocabulary].
        pooling: "max" or "sum".
        activation: "relu" or "log1p_relu".
        chunk_tokens: positions a chunk.

    Inputs: states [batch, tokens, hidden] and `padding_mask` [batch, tokens] (1 for real tokens).
    Output: float32 [batch, vocabulary].

    Example:
    >>> import numpy as np
    >>> pool = SpladePooling(keras.layers.Dense(3, use_bias=False, kernel_initializer="ones"))
    >>> states = np.array([[[1.0], [2.0], [-1.0]]], "float32")
    >>> np.round(pool(states, padding_mask=np.array([[1, 1, 0]])).numpy(), 4).tolist()  # log(1 + 2)
    [[1.0986, 1.0986, 1.0986]]
    """

    def __init__(self, head, pooling="max", activation="relu", chunk_tokens=16, **kwargs):
        super().__init__(**kwargs)
        if pooling not in SPLADE_POOLINGS:
            raise ValueError(f"SpladePooling: pooling {pooling!r} is not one of {', '.join(SPLADE_POOLINGS)}")
        if activation not in SPLADE_ACTIVATIONS:
            raise ValueError(f"SpladePooling: activation {activation!r} is not one of {', '.join(SPLADE_ACTIVATIONS)}")
        if isinstance(chunk_tokens, bool) or not isinstance(chunk_tokens, int) or chunk_tokens < 1:
            raise ValueError(f"SpladePooling: chunk_tokens must be a positive int, got {chunk_tokens!r}")
        self.head = head
        self.pooling = pooling
        self.activation = activation
        self.chunk_tokens = chunk_tokens

    def build(self, states_shape, padding_mask_shape=None):
        if not self.head.built:
            self.head.build(states_shape)

    def _weights(self, states, mask):
        return splade_weights(self.head(states), mask, self.pooling, self.activation)

    def call(self, states, padding_mask):
        tokens = tf.shape(states)[1]
        chunk = self.chunk_tokens
        first = self._weights(states[:, :chunk], padding_mask[:, :chunk])

        def body(start, pooled):
            part = self._weights(states[:, start : start + chunk], padding_mask[:, start : start + chunk])
            return start + chunk, tf.maximum(pooled, part) if self.pooling == "max" else pooled + part

        _, pooled = tf.while_loop(lambda start, _: start < tokens, body, (tf.constant(chunk), first))
        return pooled

    def compute_output_shape(self, states_shape, padding_mask_shape=None):
        return (states_shape[0], self.head.compute_output_shape(states_shape)[-1])

    def get_config(self):
        # head is the model's own layer: the model that owns it passes it again when rebuilt.
        return {
            **super().get_config(),
            "pooling": self.pooling,
            "activation": self.activation,
            "chunk_tokens": self.chunk_tokens,
        }
