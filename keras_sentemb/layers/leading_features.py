"""LeadingFeatures: the first `dim` features of each row (Matryoshka truncation)."""

import keras


@keras.saving.register_keras_serializable(package="keras_sentemb")
class LeadingFeatures(keras.layers.Layer):
    """y = x[..., :dim]: keeps the leading `dim` features, which a Matryoshka-trained model
    (Kusupati et al. 2022) orders by importance; sentence-transformers' `truncate_dim`.

    Example:
    >>> import numpy as np
    >>> LeadingFeatures(2)(np.array([[1.0, 2.0, 3.0]], "float32")).numpy().tolist()
    [[1.0, 2.0]]
    """

    def __init__(self, dim, **kwargs):
        super().__init__(**kwargs)
        if not isinstance(dim, int) or isinstance(dim, bool) or dim < 1:
            raise ValueError(f"LeadingFeatures: dim must be a positive int, got {dim!r}")
        self.dim = dim

    def call(self, inputs):
        return inputs[..., : self.dim]

    def compute_output_shape(self, input_shape):
        return (*input_shape[:-1], self.dim)

    def get_config(self):
        return {**super().get_config(), "dim": self.dim}
