"""The operations every family's inference math shares, written once, in the op shapes OpenVINO fuses.

Keras layers trace to TensorFlow ops that OpenVINO converts faithfully but cannot fuse: a
`LayerNormalization` becomes `tf.nn.moments` + `batch_normalization`, an RMS norm a cast and a
`reduce_mean` among element-wise ops, `MultiHeadAttention` an einsum with transposes and masks before and
after the softmax. At one short sentence every node costs microseconds whatever it computes. These
functions write the same math the way exported ONNX/OpenVINO transformer graphs are written:

    layer_norm(x)  = (x − mean(x)) / sqrt(var(x) + ε) · γ + β                 (→ one MVN node)
    rms_norm(x)    = x / sqrt(mean(x²) + ε) · (offset + γ)                    (→ one RMS node)
    rotate(u)      = u·cos(pθ) + rotate_half(u)·sin(pθ),  θᵢ = base^(−2i/D) / factor   (RoPE)

and `dense` reads a layer's kernel at call time, so LoRA adapters (merged into `kernel`) and weights
loaded later are what the graph computes. The attention itself, which differs between a padded batch,
texts laid one after another and a single text, is `token_layouts`'.

>>> import numpy as np
>>> x = tf.constant([[1.0, 2.0, 3.0]])
>>> np.round(layer_norm(x, 1e-12, tf.ones(3), tf.zeros(3)).numpy(), 4).tolist()
[[-1.2247, 0.0, 1.2247]]
"""

import keras
import tensorflow as tf

MASKED = -1e9  # an additive mask: exp(−10⁹ + s) is exactly 0 in float32


def masked_score(dtype):
    """The score that closes a key in `dtype`: `MASKED` in float32, −3·10⁴ in a reduced float (bfloat16 of a
    mixed-precision Keras layer: a large negative number it holds, not −∞, so that 0 · it and a padding query
    with no open key stay finite)."""
    return tf.constant(MASKED if tf.as_dtype(dtype) == tf.float32 else -3e4, dtype)


def layer_norm(x, epsilon, gamma, beta=None):
    """(x − mean) / sqrt(var + ε) · γ + β over the last axis (β: None for a norm without bias); in float32
    for a reduced-precision x (a mixed-precision Keras layer's), as Keras' own norms compute."""
    if x.dtype != tf.float32:
        return tf.cast(layer_norm(tf.cast(x, tf.float32), epsilon, _float32(gamma), _float32(beta)), x.dtype)
    mean = tf.reduce_mean(x, axis=[-1], keepdims=True)
    centred = x - mean
    variance = tf.reduce_mean(centred * centred, axis=[-1], keepdims=True)
    normed = centred / tf.sqrt(variance + epsilon) * gamma
    return normed if beta is None else normed + beta


def keras_layer_norm(layer, x):
    """A Keras `LayerNormalization`'s output (its γ, β when centred, ε), in `layer_norm`'s form."""
    return layer_norm(x, layer.epsilon, layer.gamma, layer.beta if layer.center else None)


def _float32(value):
    return None if value is None else tf.cast(tf.convert_to_tensor(value), tf.float32)


def rms_norm(x, epsilon, scale, offset=0.0):
    """x / sqrt(mean(x²) + ε) · (offset + γ) over the last axis (Gemma: offset 1, Qwen3: 0); in float32 for a
    reduced-precision x."""
    if x.dtype != tf.float32:
        return tf.cast(rms_norm(tf.cast(x, tf.float32), epsilon, _float32(scale), offset), x.dtype)
    variance = tf.reduce_mean(x * x, axis=[-1], keepdims=True)
    return x * tf.math.rsqrt(variance + epsilon) * (offset + tf.convert_to_tensor(scale))


def kernel_2d(layer):
    """A `Dense` or `EinsumDense` layer's kernel as [inputs, outputs], read now (LoRA-merged)."""
    kernel = tf.convert_to_tensor(layer.kernel)
    return tf.reshape(kernel, [kernel.shape[0], -1]) if kernel.shape.rank > 2 else kernel


def dense(layer, x, kernel_input_axes=1):
    """x·W (+ b) of a `Dense` / `EinsumDense` layer without its activation, for x [..., inputs]: the kernel
    flattened to [inputs, outputs] (`kernel_input_axes` leading axes of it are the inputs: 2 for an output
    projection [heads, size, hidden])."""
    kernel = tf.cast(tf.convert_to_tensor(layer.kernel), x.dtype)  # (a mixed-precision layer's compute dtype)
    inputs = 1
    for size in kernel.shape[:kernel_input_axes]:
        inputs *= size
    y = tf.matmul(x, tf.reshape(kernel, [inputs, -1]))
    bias = getattr(layer, "bias", None)
    return y if bias is None else y + tf.cast(tf.reshape(bias, [-1]), x.dtype)


def merged_projection(layers):
    """Projection layers (`Dense` or `EinsumDense`, same inputs) as one kernel [inputs, Σ outputs] and bias
    (zeros where a layer has none), read now: one matmul instead of several."""
    kernels, biases = [], []
    for layer in layers:
        kernel = kernel_2d(layer)
        kernels.append(kernel)
        bias = getattr(layer, "bias", None)
        biases.append(tf.zeros([kernel.shape[-1]]) if bias is None else tf.reshape(bias, [-1]))
    return tf.concat(kernels, axis=1), tf.concat(biases, axis=0)


def split_heads(x, heads):
    """[..., heads·size] → [..., heads, size]."""
    return tf.reshape(x, tf.concat([tf.shape(x)[:-1], [heads, x.shape[-1] // heads]], axis=0))


def token_rows(table, token_ids, token_table=None):
    """The embedding rows of `token_ids`: from `token_table` when given (a tensor, or an object with
    `gather(ids)`: quantised rows, a pruned vocabulary's), else from `table` (an `Embedding` layer's
    variable)."""
    table = table if token_table is None else token_table
    if callable(getattr(table, "gather", None)):
        return table.gather(token_ids)
    return tf.gather(tf.convert_to_tensor(table), token_ids)


def inverse_frequencies(size, base, scaling_factor=1.0):
    """RoPE's θᵢ = base^(−2i/size) / factor, i < size/2, as keras-hub's `RotaryEmbedding` computes them."""
    exponents = tf.range(0, size, 2, dtype=tf.float32) / float(size)
    return tf.pow(tf.constant(base, tf.float32), -exponents) / scaling_factor


def rotary_tables_of(rotary, positions, size):
    """`rotary_tables` of a keras-hub `RotaryEmbedding` layer (its base and linear scaling factor)."""
    if getattr(rotary, "rope_type", "linear") not in ("linear", "default") and rotary.scaling_factor != 1.0:
        raise ValueError(f"rotary positions of type {rotary.rope_type!r} are not written here (linear scaling only)")
    return rotary_tables(positions, size, rotary.max_wavelength, rotary.scaling_factor)


def rotary_tables(positions, size, base, scaling_factor=1.0):
    """cos(pθ), sin(pθ) [..., size] for integer `positions` [...] (θ repeated over the two halves)."""
    angles = tf.expand_dims(tf.cast(positions, tf.float32), -1) * inverse_frequencies(size, base, scaling_factor)
    angles = tf.concat([angles, angles], axis=-1)
    return tf.cos(angles), tf.sin(angles)


def rotate(u, cos, sin):
    """RoPE on u [..., heads, size] with tables [..., size] of its tokens: u·cos + rotate_half(u)·sin."""
    first, second = tf.split(u, 2, axis=-1)
    cos, sin = (
        tf.expand_dims(tf.cast(cos, u.dtype), -2),
        tf.expand_dims(tf.cast(sin, u.dtype), -2),
    )  # over the heads (no new-axis slices: LiteRT)
    return u * cos + tf.concat([-second, first], axis=-1) * sin


def float32_and_unquantised(backbone, dense_layers):
    """Whether `backbone` computes in float32 and none of `dense_layers` is quantised: what the
    inference math reads its weights as."""
    if keras.backend.standardize_dtype(backbone.dtype_policy.compute_dtype) != "float32":
        return False
    return not any(
        getattr(layer, "quantization_mode", None) or layer.dtype_policy.quantization_mode for layer in dense_layers
    )
