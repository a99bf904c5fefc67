"""The masked-LM head every family with a `*ForMaskedLM` shares: its Keras layer (`MaskedLanguageModelHead`),
built from a family's record (`masked_lm_head_layer`) and filled from a checkpoint by the record's tensor names
(`load_masked_lm_head`). What differs between families (names, activation, biases) is the record
(`family.MaskedLanguageModelHead`, each family's `masked_lm_head(config)`); the math is written here once."""

import keras
import numpy as np

from keras_sentemb.families.family import MaskedLanguageModelHead as HeadRecord  # the record; the layer below
from keras_sentemb.families.hidden_activations import hidden_activation


@keras.saving.register_keras_serializable(package="keras_sentemb")
class MaskedLanguageModelHead(keras.layers.Layer):
    """The vocabulary logits of token states, as every `*ForMaskedLM` of Hugging Face computes them:

        logits = norm(act(h·W + b))·Eᵀ + β

    with E [vocabulary, hidden] the weights of `token_embedding` (the decoder tied to the input embeddings:
    the same variable, so training one trains the other), W, b the transform, norm a LayerNorm and β one bias a
    token. A family's `Family.masked_lm_head` names its checkpoint's tensors and settings (ModernBERT's head has
    no transform or norm bias). Keras' `keras_hub.layers.MaskedLMHead` computes the same for gathered positions
    with both biases always on; this one computes every position of [batch, tokens, hidden] states.

    Args:
        token_embedding: the backbone's token `Embedding` layer (E).
        activation: Hugging Face's name of act ("gelu" is the exact GELU; `families.hidden_activations`).
        norm_epsilon: the LayerNorm's ε.
        dense_bias / norm_bias / decoder_bias: whether b, the norm's shift and β exist.

    Example:
    >>> import numpy as np
    >>> embedding = keras.layers.Embedding(7, 4)
    >>> embedding.build((None,))
    >>> head = MaskedLanguageModelHead(embedding)
    >>> head(np.zeros((2, 3, 4), "float32")).shape
    TensorShape([2, 3, 7])
    """

    def __init__(
        self,
        token_embedding,
        activation="gelu",
        norm_epsilon=1e-12,
        dense_bias=True,
        norm_bias=True,
        decoder_bias=True,
        **kwargs,
    ):
        super().__init__(**kwargs)
        self.token_embedding = token_embedding
        self.activation = activation
        self.norm_epsilon = float(norm_epsilon)
        self.dense_bias = bool(dense_bias)
        self.norm_bias = bool(norm_bias)
        self.decoder_bias = bool(decoder_bias)
        self.dense = keras.layers.Dense(
            token_embedding.output_dim,
            activation=hidden_activation(activation),
            use_bias=self.dense_bias,
            dtype=self.dtype_policy,
            name="dense",
        )
        self.norm = keras.layers.LayerNormalization(
            epsilon=self.norm_epsilon, center=self.norm_bias, dtype=self.dtype_policy, name="norm"
        )

    def build(self, input_shape):
        self.dense.build(input_shape)
        self.norm.build((*input_shape[:-1], self.token_embedding.output_dim))
        self.bias = (
            self.add_weight(name="bias", shape=(self.token_embedding.input_dim,), initializer="zeros")
            if self.decoder_bias
            else None
        )

    def call(self, states):
        x = self.norm(self.dense(states))
        table = keras.ops.cast(self.token_embedding.embeddings, x.dtype)
        logits = keras.ops.matmul(x, keras.ops.transpose(table))
        if self.bias is not None:
            logits = logits + keras.ops.cast(self.bias, logits.dtype)
        return logits

    def compute_output_shape(self, input_shape):
        return (*input_shape[:-1], self.token_embedding.input_dim)

    def get_config(self):
        # token_embedding is the backbone's layer: the model that owns both passes it again when rebuilt.
        return {
            **super().get_config(),
            "activation": self.activation,
            "norm_epsilon": self.norm_epsilon,
            "dense_bias": self.dense_bias,
            "norm_bias": self.norm_bias,
            "decoder_bias": self.decoder_bias,
        }


def roberta_lineage_head(config, default_epsilon):
    """The `lm_head.*` record RoBERTa, XLM-R and MPNet share: logits = layer_norm(gelu(dense(h)))·Eᵀ + bias (the exact
    GELU, whatever `hidden_act` says), ε from `layer_norm_eps`."""
    return HeadRecord(
        dense="lm_head.dense",
        norm="lm_head.layer_norm",
        decoder="lm_head.decoder",
        bias=("lm_head.bias", "lm_head.decoder.bias"),
        activation="gelu",
        norm_epsilon=float(config.get("layer_norm_eps", default_epsilon)),
    )


# What the Keras head needs of a family's record (the rest are checkpoint names).
HEAD_SETTINGS = ("activation", "norm_epsilon", "dense_bias", "norm_bias", "decoder_bias")


def head_settings(record):
    """{setting: value} of a family's `MaskedLanguageModelHead` record for `masked_lm_head_layer`."""
    return {setting: getattr(record, setting) for setting in HEAD_SETTINGS}


def masked_lm_head_layer(backbone, name="masked_lm_head", **settings):
    """The `MaskedLanguageModelHead` over `backbone`'s token embeddings with `settings` (`head_settings`), at the
    backbone's dtype policy."""
    return MaskedLanguageModelHead(backbone.token_embedding, dtype=backbone.dtype_policy, name=name, **settings)


def load_masked_lm_head(head, record, tensors):
    """Fills a built `head` from the open checkpoint `tensors` by the record's names: the transform, the norm
    (weight/bias or TF-era gamma/beta), β (the first of `record.bias` present). A stored decoder weight must
    equal the token embeddings (the tied decoder); ValueError naming the checkpoint for a missing head or an
    untied decoder."""
    missing = [name for name in (f"{record.dense}.weight", record.norm) if not _norm_or_tensor_present(tensors, name)]
    if missing:
        raise ValueError(f"{tensors.describe()}: no masked-LM head (missing {', '.join(missing)}): not a *ForMaskedLM")
    tensors.assign_linear(head.dense, record.dense)
    gamma, beta = ("weight", "bias") if f"{record.norm}.weight" in tensors else ("gamma", "beta")
    tensors.assign(head.norm.gamma, f"{record.norm}.{gamma}")
    if record.norm_bias:
        tensors.assign(head.norm.beta, f"{record.norm}.{beta}")
    if record.decoder_bias:
        bias = next((name for name in record.bias if name in tensors), None)
        if bias is None:
            raise ValueError(f"{tensors.describe()}: the masked-LM head has no bias ({' or '.join(record.bias)})")
        tensors.assign(head.bias, bias)
        for other in record.bias:  # the tied copy (`decoder.bias`), when stored too, is the same tensor
            if other != bias and other in tensors:
                tensors.get(other)
    decoder = f"{record.decoder}.weight"
    if decoder in tensors:
        tensors.wait()
        if not np.array_equal(tensors.get(decoder), keras.ops.convert_to_numpy(head.token_embedding.embeddings)):
            raise ValueError(
                f"{tensors.describe()}: {decoder} differs from the token embeddings (an untied masked-LM decoder is "
                "not supported)"
            )


def _norm_or_tensor_present(tensors, name):
    return name in tensors or f"{name}.weight" in tensors or f"{name}.gamma" in tensors
