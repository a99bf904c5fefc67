"""SiamesePooler: mask-aware pooling of token states into one sentence vector."""

import keras
from keras import ops

POOLING_MODES = ("mean", "max", "cls", "mean_sqrt_len", "weighted_mean", "last_token")


@keras.saving.register_keras_serializable(package="keras_sentemb")
class SiamesePooler(keras.layers.Layer):
    """Pools token states `H` [batch, T, d] into one sentence vector per row.

    With the padding mask `m` [batch, T] (1 = real token, 0 = padding) and, when
    `exclude_special_tokens=True`, the first ([CLS]) and last real ([SEP]) token of
    every row removed from `m`:

    - `"mean"` (default, SBERT):   u = Σ_t m_t·H_t / max(Σ_t m_t, 1)
    - `"mean_sqrt_len"`:           u = Σ_t m_t·H_t / sqrt(max(Σ_t m_t, 1))
    - `"max"`:                     u_j = max_{t: m_t=1} H_tj   (0 when no token is left)
    - `"cls"`:                     u = H_0 (the first position; the mask is not used)
    - `"weighted_mean"`:           u = Σ_t (t+1)·m_t·H_t / Σ_t (t+1)·m_t   (later tokens weigh more)
    - `"last_token"`:              u = H_t at the last real position t = max{t : m_t = 1}
                                   (right or left padding)

    `mode` may also be a sequence of modes: each is pooled and the results are concatenated in
    that order (sentence-transformers' `pooling_mode` tuples, e.g. `("cls", "mean")`).

    Several encoder layers can be pooled at once: pass a list of L tensors
    [batch, T, d] (for example every transformer layer's output, first to last) and
    choose them with `layer_indices` (Python indexing, so `(-1,)` is the last layer,
    the default, and `(-4, -3, -2, -1)` are the last four). Each chosen layer is pooled
    on its own and the results are concatenated in the order given, so the output has
    `len(layer_indices) · d` features. DSE (Barkan et al. 2020) uses
    `SiamesePooler("mean", layer_indices=(-4, -3, -2, -1), exclude_special_tokens=True)`.

    Masking: the padding mask is taken from the `padding_mask` call argument, or else
    from the Keras mask carried by the input (e.g. from `Embedding(mask_zero=True)`),
    or else every position counts. Padding never changes the result: positions with
    m_t = 0 get weight 0 in the mean and -inf in the max. A row with no counted token
    (an empty row, or [CLS][SEP] alone with `exclude_special_tokens=True`) pools to
    the zero vector. The output is not a sequence, so the layer emits no mask.

    Args:
        mode: one of `"mean"`, `"max"`, `"cls"`, `"mean_sqrt_len"`.
        layer_indices: which of the input layers to pool, when the input is a list.
        exclude_special_tokens: drop the first and the last real token of each row
            (BERT's [CLS] and [SEP]) from mean and max pooling. Ignored by `"cls"`.

    Input shape: a tensor [batch, T, d] or a list of them; `padding_mask` [batch, T]
        (bool or int). Output shape: [batch, len(layer_indices) · d], float32 at
        least (bfloat16 compute is cast up so that the vector keeps its precision).

    Example:
    >>> import numpy as np
    >>> states = np.array([[[1.0, 2.0], [3.0, 4.0], [9.0, 9.0]]], "float32")
    >>> mask = np.array([[1, 1, 0]])
    >>> SiamesePooler("mean")(states, padding_mask=mask).numpy().tolist()
    [[2.0, 3.0]]
    """

    def __init__(
        self,
        mode="mean",
        layer_indices=(-1,),
        exclude_special_tokens=False,
        **kwargs,
    ):
        super().__init__(**kwargs)
        modes = (mode,) if isinstance(mode, str) else tuple(mode)
        if not modes or any(m not in POOLING_MODES for m in modes):
            raise ValueError(
                f"SiamesePooler: unknown mode={mode!r}; expected one of {POOLING_MODES} or a sequence of them."
            )
        layer_indices = tuple(layer_indices)
        if not layer_indices or not all(isinstance(i, int) for i in layer_indices):
            raise ValueError(
                f"SiamesePooler: layer_indices must be a non-empty sequence of ints, got {layer_indices!r}."
            )
        self.mode = modes[0] if len(modes) == 1 else modes
        self.modes = modes
        self.layer_indices = layer_indices
        self.exclude_special_tokens = bool(exclude_special_tokens)
        self.supports_masking = True

    def _select_layers(self, inputs):
        if not isinstance(inputs, (list, tuple)):
            inputs = [inputs]
        count = len(inputs)
        chosen = []
        for index in self.layer_indices:
            if not -count <= index < count:
                raise ValueError(f"SiamesePooler: layer index {index} is out of range for {count} input layer(s).")
            chosen.append(inputs[index])
        return chosen

    def _token_weights(self, states, padding_mask):
        """The [batch, T] float mask of the tokens that are pooled."""
        if padding_mask is None:
            weights = ops.ones(ops.shape(states)[:2], dtype=states.dtype)
        else:
            weights = ops.cast(padding_mask, states.dtype)
        if self.exclude_special_tokens:
            length = ops.shape(weights)[1]
            positions = ops.expand_dims(ops.arange(length), 0)
            last_real = ops.cast(ops.sum(weights, axis=1, keepdims=True), "int32") - 1
            keep = ops.logical_and(positions > 0, positions != last_real)
            weights = weights * ops.cast(keep, weights.dtype)
        return weights

    def _pool(self, mode, states, weights):
        if mode == "cls":
            return states[:, 0, :]
        if mode == "last_token":
            # the last position whose mask is 1: right padding (BERT's) and left padding (Qwen3-Embedding's) alike
            positions = ops.expand_dims(ops.cast(ops.arange(ops.shape(weights)[1]) + 1, weights.dtype), 0)
            last = ops.maximum(ops.cast(ops.max(weights * positions, axis=1), "int32") - 1, 0)
            return ops.take_along_axis(states, ops.reshape(last, (-1, 1, 1)), axis=1)[:, 0, :]
        # expand_dims, not [:, :, None]: LiteRT has no builtin for a strided slice that adds an axis.
        weights3 = ops.expand_dims(weights, -1)
        counts = ops.maximum(ops.sum(weights, axis=1, keepdims=True), 1.0)
        if mode == "weighted_mean":
            positions = ops.expand_dims(ops.cast(ops.arange(ops.shape(weights)[1]) + 1, weights.dtype), 0)
            weighted = weights * positions
            total = ops.maximum(ops.sum(weighted, axis=1, keepdims=True), 1e-9)
            return ops.sum(states * ops.expand_dims(weighted, -1), axis=1) / total
        if mode == "max":
            lowest = ops.full_like(states, -1e9)
            masked = ops.where(weights3 > 0, states, lowest)
            pooled = ops.max(masked, axis=1)
            any_token = ops.sum(weights, axis=1, keepdims=True) > 0
            return ops.where(any_token, pooled, ops.zeros_like(pooled))
        summed = ops.sum(states * weights3, axis=1)
        if mode == "mean":
            return summed / counts
        return summed / ops.sqrt(counts)

    def call(self, inputs, padding_mask=None, mask=None):
        chosen = self._select_layers(inputs)
        if padding_mask is None and mask is not None:
            padding_mask = mask[0] if isinstance(mask, (list, tuple)) else mask
        pooled = []
        for states in chosen:
            if keras.backend.standardize_dtype(states.dtype) in ("float16", "bfloat16"):
                states = ops.cast(states, "float32")
            weights = self._token_weights(states, padding_mask)
            pooled.extend(self._pool(mode, states, weights) for mode in self.modes)
        if len(pooled) == 1:
            return pooled[0]
        return ops.concatenate(pooled, axis=-1)

    def compute_mask(self, inputs, mask=None):
        return None

    def compute_output_shape(self, input_shape):
        is_list_of_shapes = isinstance(input_shape, (list, tuple)) and all(
            isinstance(shape, (list, tuple)) for shape in input_shape
        )
        shapes = list(input_shape) if is_list_of_shapes else [input_shape]
        for index in self.layer_indices:
            if not -len(shapes) <= index < len(shapes):
                raise ValueError(
                    f"SiamesePooler: layer index {index} is out of range for {len(shapes)} input layer(s)."
                )
        features = [shapes[i][-1] for i in self.layer_indices for _ in self.modes]
        total = None if None in features else sum(features)
        return (shapes[0][0], total)

    def get_config(self):
        config = super().get_config()
        config.update(
            {
                "mode": self.mode if isinstance(self.mode, str) else list(self.mode),
                "layer_indices": list(self.layer_indices),
                "exclude_special_tokens": self.exclude_special_tokens,
            }
        )
        return config
