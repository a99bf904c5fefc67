"""GatedConvFusion: InferLite's gated fusion of K word-embedding types into one sentence vector."""

import keras
from keras import ops

_NEGATIVE_INFINITY = -1e9


@keras.saving.register_keras_serializable(package="keras_sentemb")
class GatedConvFusion(keras.layers.Layer):
    """Fuses K embedding sequences E¹…E^K of one sentence and max-pools over its tokens.

    Per type k, an encoder of M convolutions over the tokens:
        H_m^k = ReLU(conv_m^k(H_{m−1}^k)), H_0^k = E^k, the last one tanh instead of ReLU.
    A controller shared by all types, time-distributed over the concatenated embeddings:
        G_0^c = ReLU(W_c [E¹; …; E^K] + b_c),
    then M convolution heads per type: G_m^k = ReLU(conv(G_{m−1}^k)), G_0^k = G_0^c, the
    last one a sigmoid (the gates, in (0, 1)). The fused token states and the sentence
    vector:
        F = ReLU(W_f (Σ_k H_M^k ⊙ G_M^k + G_0^c) + b_f),    s = max over real tokens of F.

    Masking: after every convolution the padded positions are set to zero, so a
    filter of length 3 sees the same zeros past the last word whatever the padding, and
    padded positions never win the max: padding never changes `s`. With
    `filter_length=1` every step is per token, so `s` does not depend on word order.

    Args:
        units: width h of every encoder, controller and gate state.
        output_units: width of F and of the sentence vector (default `units`).
        num_layers: M ≥ 1 convolutions per encoder and per gate head.
        filter_length: 1 (bag of words) or 3 (local context), odd, "same" padding.

    Input: a list of K ≥ 1 tensors [batch, T, d_k] and `padding_mask` [batch, T] (1 = real
    token; Keras masks are used when it is not given). Output: [batch, output_units].

    Paper: Kiros & Chan 2018, InferLite: Simple Universal Sentence Representations from
    Natural Language Inference Data.

    Example:
    >>> import numpy as np
    >>> fusion = GatedConvFusion(units=8, num_layers=2)
    >>> glove, other = np.ones((2, 5, 50)), np.ones((2, 5, 16))
    >>> fusion([glove, other], padding_mask=np.ones((2, 5))).shape
    TensorShape([2, 8])
    """

    def __init__(self, units, output_units=None, num_layers=2, filter_length=1, **kwargs):
        super().__init__(**kwargs)
        for name, value in (("units", units), ("num_layers", num_layers)):
            if not isinstance(value, int) or isinstance(value, bool) or value < 1:
                raise ValueError(f"GatedConvFusion: {name} must be a positive int, got {value!r}")
        output_units = units if output_units is None else output_units
        if not isinstance(output_units, int) or isinstance(output_units, bool) or output_units < 1:
            raise ValueError(f"GatedConvFusion: output_units must be a positive int, got {output_units!r}")
        if filter_length not in (1, 3, 5, 7):
            raise ValueError(f"GatedConvFusion: filter_length must be 1 or 3 (odd), got {filter_length!r}")
        self.units = units
        self.output_units = output_units
        self.num_layers = num_layers
        self.filter_length = filter_length
        self.supports_masking = True

    def _conv(self, name, activation):
        return keras.layers.Conv1D(
            self.units, self.filter_length, padding="same", activation=activation, dtype=self.dtype_policy, name=name
        )

    def build(self, input_shape):
        if (
            not isinstance(input_shape, (list, tuple))
            or not input_shape
            or not isinstance(input_shape[0], (list, tuple))
        ):
            raise ValueError(
                f"GatedConvFusion expects a list of K embedding tensors [batch, T, d_k], got shape {input_shape}"
            )
        self.num_types = len(input_shape)
        last = lambda m: m == self.num_layers - 1  # noqa: E731
        self.encoders, self.gate_heads = [], []
        for k, shape in enumerate(input_shape):
            encoder, gates = [], []
            width, gate_width = shape[-1], self.units
            for m in range(self.num_layers):
                conv = self._conv(f"encoder_{k}_{m}", "tanh" if last(m) else "relu")
                conv.build((None, None, width))
                encoder.append(conv)
                gate = self._conv(f"gate_{k}_{m}", "sigmoid" if last(m) else "relu")
                gate.build((None, None, gate_width))
                gates.append(gate)
                width = gate_width = self.units
            self.encoders.append(encoder)
            self.gate_heads.append(gates)
        self.controller = keras.layers.Dense(self.units, activation="relu", dtype=self.dtype_policy, name="controller")
        self.controller.build((None, None, sum(shape[-1] for shape in input_shape)))
        self.fusion = keras.layers.Dense(self.output_units, activation="relu", dtype=self.dtype_policy, name="fusion")
        self.fusion.build((None, None, self.units))
        super().build(input_shape)

    @staticmethod
    def _token_mask(inputs, padding_mask, mask):
        if padding_mask is None and mask is not None:
            padding_mask = mask[0] if isinstance(mask, (list, tuple)) else mask
        if padding_mask is None:
            return None
        return ops.expand_dims(ops.cast(padding_mask, inputs[0].dtype), -1)

    def _masked(self, states, token_mask):
        return states if token_mask is None else states * ops.cast(token_mask, states.dtype)

    def token_states(self, inputs, padding_mask=None, mask=None):
        """(F [batch, T, output_units], gates: K tensors G_M^k [batch, T, units]), F zero at
        padded positions."""
        if not self.built:
            self.build([tuple(x.shape) for x in inputs])
        token_mask = self._token_mask(inputs, padding_mask, mask)
        inputs = [self._masked(ops.convert_to_tensor(x, self.compute_dtype), token_mask) for x in inputs]
        control = self._masked(self.controller(ops.concatenate(inputs, axis=-1)), token_mask)
        fused, gates = control, []
        for embeddings, encoder, gate_head in zip(inputs, self.encoders, self.gate_heads):
            states, gate = embeddings, control
            for conv, gate_conv in zip(encoder, gate_head):
                states = self._masked(conv(states), token_mask)
                gate = self._masked(gate_conv(gate), token_mask)
            gates.append(gate)
            fused = fused + states * gate
        return self._masked(self.fusion(fused), token_mask), gates

    def call(self, inputs, padding_mask=None, mask=None):
        fused, _ = self.token_states(inputs, padding_mask=padding_mask, mask=mask)
        token_mask = self._token_mask(inputs, padding_mask, mask)
        if token_mask is not None:
            fused = ops.where(token_mask > 0, fused, ops.cast(_NEGATIVE_INFINITY, fused.dtype))
            # A row without any real token pools to zeros, never to -1e9.
            has_tokens = ops.max(token_mask, axis=1) > 0
            return ops.where(has_tokens, ops.max(fused, axis=1), ops.zeros_like(fused[:, 0]))
        return ops.max(fused, axis=1)

    def compute_mask(self, inputs, mask=None):
        return None

    def compute_output_shape(self, input_shape):
        return (input_shape[0][0], self.output_units)

    def get_config(self):
        config = super().get_config()
        config.update(
            units=self.units,
            output_units=self.output_units,
            num_layers=self.num_layers,
            filter_length=self.filter_length,
        )
        return config
