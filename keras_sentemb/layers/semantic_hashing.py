"""SemanticHashing: a learned binary code of a sentence embedding."""

import keras
from keras import ops

MIN_BITS, MAX_BITS = 64, 4096


@keras.saving.register_keras_serializable(package="keras_sentemb")
class SemanticHashing(keras.layers.Layer):
    """Relaxed binary codes h(s) = σ(LN(W s + b) / τ), hard codes 1[h(s) > 0.5].

    W s + b projects the sentence embedding s to `bits` pre-activations, layer
    normalisation LN centres and scales them across the bits (so a code has as many
    ones as zeros on average), and the temperature τ sharpens the sigmoid: as τ → 0,
    h(s) tends to the 0/1 code. τ is a non-trainable variable that the
    `TemperatureSchedule` callback decays from 1 towards 0 during training (InferLite,
    Kiros & Chan 2018, §3.3). Since σ(z/τ) > 0.5 ⇔ z > 0 for any τ > 0, the hard code
    does not depend on τ.

    `call` returns the differentiable relaxation h(s) ∈ (0, 1) (train with it); with
    `straight_through=True` it returns the hard code 1[h > 0.5] in the forward pass and
    the gradient of h in the backward pass (straight-through estimator, Bengio et al.
    2013), so a loss sees the codes a search will use. `binarize` returns the hard code,
    as 0/1 `uint8` [N, bits] or packed `uint8` [N, bits/8] (the layout of
    `keras_sentemb.retrieval.BinaryIndex` and FAISS).

    Args:
        bits: code length, a multiple of 8 from 64 to 4096.
        initial_temperature: τ before any schedule runs (1 in the paper).
        straight_through: `call` gives hard codes with the relaxed gradient.
        kernel_initializer: initialiser of W.
        nested_bits: the prefix ladder a nested (Matryoshka) code was trained for, e.g.
            (64, 128, 256, 512), ending at `bits`: each prefix of that many bits is a code of its
            own (`HashedEncoder.hash(bits=...)`, `BinaryIndex.search(bits=...)`). None: one code.

    Input: [batch, d] sentence embeddings (no mask: one vector a sentence).
    Output of `call`: [batch, bits] float in (0, 1).

    Example:
    >>> import numpy as np
    >>> layer = SemanticHashing(64)
    >>> layer(np.ones((2, 8), "float32")).shape
    TensorShape([2, 64])
    >>> layer.binarize(np.ones((2, 8), "float32"), packed=True).shape
    TensorShape([2, 8])
    """

    def __init__(
        self,
        bits,
        initial_temperature=1.0,
        straight_through=False,
        kernel_initializer="glorot_uniform",
        nested_bits=None,
        **kwargs,
    ):
        super().__init__(**kwargs)
        if not isinstance(bits, int) or isinstance(bits, bool) or bits % 8 or not MIN_BITS <= bits <= MAX_BITS:
            raise ValueError(f"bits must be a multiple of 8 from {MIN_BITS} to {MAX_BITS}, got {bits!r}")
        self.nested_bits = None if nested_bits is None else nested_code_ladder(nested_bits, bits)
        if not float(initial_temperature) > 0:
            raise ValueError(f"initial_temperature must be > 0, got {initial_temperature!r}")
        self.bits = bits
        self.initial_temperature = float(initial_temperature)
        self.straight_through = bool(straight_through)
        self.kernel_initializer = keras.initializers.get(kernel_initializer)
        self.projection = keras.layers.Dense(bits, kernel_initializer=self.kernel_initializer, name="projection")
        self.layer_norm = keras.layers.LayerNormalization(epsilon=1e-5, name="layer_norm")

    def build(self, input_shape):
        self.projection.build(input_shape)
        self.layer_norm.build(tuple(input_shape[:-1]) + (self.bits,))
        self.temperature = self.add_weight(
            shape=(),
            name="temperature",
            trainable=False,
            initializer=keras.initializers.Constant(self.initial_temperature),
        )

    def logits(self, inputs):
        """LN(W s + b): positive exactly where the bit is 1."""
        return self.layer_norm(self.projection(inputs))

    def call(self, inputs):
        relaxed = ops.sigmoid(self.logits(inputs) / ops.cast(self.temperature, self.compute_dtype))
        if not self.straight_through:
            return relaxed
        hard = ops.cast(relaxed > 0.5, relaxed.dtype)
        return relaxed + ops.stop_gradient(hard - relaxed)

    def binarize(self, inputs, packed=False):
        """Hard codes 1[h(s) > 0.5]: uint8 0/1 [N, bits], or packed uint8 [N, bits/8]
        with the first bit in the most significant position (`np.packbits` order)."""
        bits = ops.cast(self.logits(inputs) > 0, "uint8")
        return pack_bit_tensor(bits) if packed else bits

    def compute_output_shape(self, input_shape):
        return tuple(input_shape[:-1]) + (self.bits,)

    def get_config(self):
        config = super().get_config()
        config.update(
            {
                "bits": self.bits,
                "initial_temperature": self.initial_temperature,
                "straight_through": self.straight_through,
                "kernel_initializer": keras.initializers.serialize(self.kernel_initializer),
                "nested_bits": None if self.nested_bits is None else list(self.nested_bits),
            }
        )
        return config


def nested_code_ladder(ladder, bits):
    """`ladder` checked as the prefix lengths of a nested `bits`-bit code: strictly increasing
    multiples of 8, from at least 8, ending at `bits`."""
    try:
        ladder = tuple(int(b) for b in ladder)
    except (TypeError, ValueError):
        raise TypeError(f"nested_bits must be a sequence of ints, got {ladder!r}") from None
    if (
        not ladder
        or ladder[-1] != bits
        or ladder[0] < 8
        or any(b % 8 for b in ladder)
        or any(a >= b for a, b in zip(ladder, ladder[1:]))
    ):
        raise ValueError(
            f"nested_bits must be strictly increasing multiples of 8 (from 8) ending at bits={bits}, got {ladder!r}"
        )
    return ladder


def pack_bit_tensor(bits):
    """0/1 tensor [N, bits] → uint8 [N, bits/8], most significant bit first (in-graph packbits)."""
    weights = ops.convert_to_tensor([128, 64, 32, 16, 8, 4, 2, 1], dtype="int32")
    grouped = ops.reshape(ops.cast(bits, "int32"), (-1, bits.shape[-1] // 8, 8))
    return ops.cast(ops.sum(grouped * weights, axis=-1), "uint8")
