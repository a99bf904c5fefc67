"""Helpers every family's Hugging Face conversion shares: a torch `Linear` weight as a Keras kernel, layer
norms stored either way, keras `MultiHeadAttention` projections, and config values the builders take as given.

The families' `load_weights(backbone, tensors)` take `tensors`, an open checkpoint with `assign(variable,
name, convert=None)`, `assign_linear(dense, prefix)`, `get(name)` and `__contains__`
(`pretrained.checkpoint_tensors.CheckpointTensors`), so a family never reads files itself.
"""

import tensorflow as tf


def transposed(value):
    """A torch Linear weight [out, in] as a Keras kernel [in, out]: `tf.transpose` (blocked, on every core)
    takes a third of NumPy's `ascontiguousarray(value.T)` (0.17 s against 0.46 s for MPNet's FFNs)."""
    return tf.transpose(value)


def reshaped(shape, transform=None):
    """A transform for `CheckpointTensors.assign`: `transform(value)` reshaped to `shape` (an einsum kernel
    [hidden, heads, size], a bias [heads, size]) when it holds that many numbers, else left as it is, so that the
    assignment's shape check names the tensor and both shapes.

    >>> reshaped((2, 3))(tf.zeros([6])).shape.as_list(), reshaped((2, 3))(tf.zeros([5])).shape.as_list()
    ([2, 3], [5])
    """

    def apply(value):
        value = value if transform is None else transform(value)
        size = 1
        for length in shape:
            size *= int(length)
        return tf.reshape(value, shape) if int(tf.size(value)) == size else value

    return apply


def assign_norm(tensors, layer, name):
    """A LayerNorm stored as weight/bias (current) or gamma/beta (TF-era BERT checkpoints)."""
    gamma, beta = ("weight", "bias") if f"{name}.weight" in tensors else ("gamma", "beta")
    tensors.assign(layer.gamma, f"{name}.{gamma}")
    tensors.assign(layer.beta, f"{name}.{beta}")


def assign_einsum_heads(tensors, layer, name):
    """A keras `MultiHeadAttention` projection: kernel [hidden, heads, size] from a torch Linear."""
    tensors.assign(layer.kernel, f"{name}.weight", lambda w: tf.reshape(transposed(w), layer.kernel.shape))
    tensors.assign(layer.bias, f"{name}.bias", lambda b: b.reshape(layer.bias.shape))


def assign_einsum_output(tensors, layer, name):
    """A keras `MultiHeadAttention` output projection: kernel [heads, size, hidden] from a torch Linear."""
    tensors.assign(layer.kernel, f"{name}.weight", lambda w: tf.reshape(transposed(w), layer.kernel.shape))
    tensors.assign(layer.bias, f"{name}.bias")


def require_config_value(config, key, expected, source):
    """ValueError naming `source` when config.json's `key` is set to anything but `expected`."""
    value = config.get(key, expected)
    if value != expected:
        raise ValueError(f"{source}: {key}={value!r} is not supported (only {expected!r})")


def assign_post_norm_block(tensors, block, at, names):
    """A `PostNormBlock`'s weights from the tensors under `at` named by `names` (query, key, value,
    attention_output, attention_norm, intermediate, output, feedforward_norm → the checkpoint's names);
    keras-hub's `EinsumDense` projections and `Dense` layers alike."""
    for layer, key in ((block.query, "query"), (block.key, "key"), (block.value, "value")):
        if layer.kernel.shape.rank == 3:
            assign_einsum_heads(tensors, layer, f"{at}.{names[key]}")
        else:
            tensors.assign_linear(layer, f"{at}.{names[key]}")
    if block.attention_output.kernel.shape.rank == 3:
        assign_einsum_output(tensors, block.attention_output, f"{at}.{names['attention_output']}")
    else:
        tensors.assign_linear(block.attention_output, f"{at}.{names['attention_output']}")
    assign_norm(tensors, block.attention_norm, f"{at}.{names['attention_norm']}")
    tensors.assign_linear(block.intermediate, f"{at}.{names['intermediate']}")
    tensors.assign_linear(block.output, f"{at}.{names['output']}")
    assign_norm(tensors, block.feedforward_norm, f"{at}.{names['feedforward_norm']}")


def assign_decoder_block(tensors, block, at):
    """A `pre_norm_decoder.DecoderBlock`'s weights from the Llama-lineage tensors under `at` ("layers.N"):
    `self_attn.{q,k,v,o}_proj` ([out, in] → the einsum kernels; biases where the layer has one: Qwen2's q/k/v),
    `self_attn.{q,k}_norm` where the block has them (Qwen3's), the two layer norms and `mlp.{gate,up,down}_proj`."""
    for dense, name in (
        (block.query, "q_proj"),
        (block.key, "k_proj"),
        (block.value, "v_proj"),
        (block.attention_output, "o_proj"),
    ):
        tensors.assign(dense.kernel, f"{at}.self_attn.{name}.weight", reshaped(dense.kernel.shape, transposed))
        if getattr(dense, "bias", None) is not None:  # [out] → [heads, head_dim]
            tensors.assign(dense.bias, f"{at}.self_attn.{name}.bias", reshaped(dense.bias.shape))
    for norm, name in ((block.query_norm, "q_norm"), (block.key_norm, "k_norm")):
        if norm is not None:
            tensors.assign(norm.scale, f"{at}.self_attn.{name}.weight")
    tensors.assign(block.input_norm.scale, f"{at}.input_layernorm.weight")
    tensors.assign(block.feedforward_norm.scale, f"{at}.post_attention_layernorm.weight")
    tensors.assign_linear(block.gate, f"{at}.mlp.gate_proj")
    tensors.assign_linear(block.up, f"{at}.mlp.up_proj")
    tensors.assign_linear(block.down, f"{at}.mlp.down_proj")
