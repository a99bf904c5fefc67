"""sentence-transformers' Dense modules as Keras layers, on one vector a text or one a token."""

import keras


def apply_dense_modules(embedding, dense_layers, name="dense"):
    """`embedding` (a Keras tensor [..., d]) through sentence-transformers' Dense modules, each

        uᵢ₊₁ = act(uᵢ·W + b)   (+ uᵢ, or + uᵢ·R with `use_residual`: R a bias-free projection when the widths differ)

    on the last axis, so a pooled sentence vector [batch, d] and token states [batch, tokens, d] (a multi-vector
    encoder's projection) take the same layers. `dense_layers`: dicts {"units", "activation" (default "tanh"),
    "use_bias" (True), "use_residual" (False)}; the layers are named `{name}_{i}` (and `{name}_{i}_residual_projection`),
    the names `CheckpointTensors.assign_linear` fills from the modules' `linear` (and `residual`) weights.

    Example:
    >>> inputs = keras.Input(shape=(None, 8))
    >>> tuple(apply_dense_modules(inputs, [{"units": 4, "activation": "linear", "use_bias": False}]).shape)
    (None, None, 4)
    """
    for index, layer in enumerate(dense_layers):
        dense = keras.layers.Dense(
            layer["units"],
            activation=layer.get("activation", "tanh"),
            use_bias=layer.get("use_bias", True),
            dtype="float32",
            name=f"{name}_{index}",
        )
        projected = dense(embedding)
        if layer.get("use_residual", False):
            if layer["units"] == embedding.shape[-1]:
                projected = keras.layers.Add(name=f"{name}_{index}_residual")([projected, embedding])
            else:
                residual = keras.layers.Dense(
                    layer["units"], use_bias=False, dtype="float32", name=f"{name}_{index}_residual_projection"
                )(embedding)
                projected = keras.layers.Add(name=f"{name}_{index}_residual")([projected, residual])
        embedding = projected
    return embedding
