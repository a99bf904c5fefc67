"""PairFeatureHead: a classifier/regressor on features of two sentence embeddings."""

import keras
from keras import ops

PAIR_FEATURES = ("u", "v", "abs_diff", "product")


@keras.saving.register_keras_serializable(package="keras_sentemb")
class PairFeatureHead(keras.layers.Layer):
    """Logits from the concatenation of chosen pair features of u and v.

    x = [f_1(u, v), …, f_k(u, v)] with f in {"u": u, "v": v, "abs_diff": |u − v|,
    "product": u ∘ v} in the order given; then optional hidden layers
    h ← act(W_h h + b_h) (with dropout), and logits = W_o h + b_o.

    SBERT's classifier is `PairFeatureHead(3)` (features u, v, |u−v|); InferLite's NLI
    MLP is `PairFeatureHead(3, ("u", "v", "abs_diff", "product"), hidden_units=(512, 512))`.

    Args:
        units: output logits (1 for regression, n for n classes).
        features: ordered, non-empty subset of ("u", "v", "abs_diff", "product").
        hidden_units: sizes of hidden Dense layers, none by default.
        hidden_activation: activation of the hidden layers.
        dropout: dropout rate before each hidden and the output layer.
        output_initializer: initializer of W_o ("zeros" starts a linear scorer at f = 0,
            with no random function of the features to unlearn; DSE uses it).

    Input: `[u, v]`, two tensors [batch, d]. Output: [batch, units] (no activation).

    Example:
    >>> import numpy as np
    >>> head = PairFeatureHead(3)
    >>> head([np.ones((2, 4)), np.zeros((2, 4))]).shape
    TensorShape([2, 3])
    """

    def __init__(
        self,
        units,
        features=("u", "v", "abs_diff"),
        hidden_units=(),
        hidden_activation="relu",
        dropout=0.0,
        output_initializer="glorot_uniform",
        **kwargs,
    ):
        super().__init__(**kwargs)
        features = tuple(features)
        unknown = [f for f in features if f not in PAIR_FEATURES]
        if not features or unknown or len(set(features)) != len(features):
            raise ValueError(
                f"features must be a non-empty ordered subset of {PAIR_FEATURES} without repeats, got {features}"
            )
        if not isinstance(units, int) or units < 1:
            raise ValueError(f"units must be a positive int, got {units!r}")
        self.units = units
        self.features = features
        self.hidden_units = tuple(hidden_units)
        self.hidden_activation = hidden_activation
        self.dropout = float(dropout)
        self.hidden_layers = [
            keras.layers.Dense(n, activation=hidden_activation, name=f"hidden_{i}")
            for i, n in enumerate(self.hidden_units)
        ]
        self.dropout_layer = keras.layers.Dropout(self.dropout)
        self.output_initializer = keras.initializers.get(output_initializer)
        self.output_layer = keras.layers.Dense(units, kernel_initializer=self.output_initializer, name="logits")

    def build(self, input_shape):
        dim = input_shape[0][-1]
        width = dim * len(self.features)
        for layer in self.hidden_layers:
            layer.build((None, width))
            width = layer.units
        self.output_layer.build((None, width))

    def pair_features(self, u, v):
        """The concatenated feature vector [batch, len(features)·d]."""
        parts = {"u": u, "v": v, "abs_diff": ops.abs(u - v), "product": u * v}
        return ops.concatenate([parts[name] for name in self.features], axis=-1)

    def call(self, inputs, training=False):
        u, v = inputs
        x = self.pair_features(u, v)
        for layer in self.hidden_layers:
            x = layer(self.dropout_layer(x, training=training))
        return self.output_layer(self.dropout_layer(x, training=training))

    def compute_output_shape(self, input_shape):
        return (input_shape[0][0], self.units)

    def get_config(self):
        return {
            **super().get_config(),
            "units": self.units,
            "features": list(self.features),
            "hidden_units": list(self.hidden_units),
            "hidden_activation": self.hidden_activation,
            "dropout": self.dropout,
            "output_initializer": keras.initializers.serialize(self.output_initializer),
        }
