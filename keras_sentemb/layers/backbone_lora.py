"""LoRA on a keras-hub backbone, with every other backbone weight frozen."""

import keras
import numpy as np

# Every dense layer of a keras-hub TransformerEncoder (BERT, MiniLM): attention query, key,
# value and output projections, and both feed-forward layers. keras-hub's default LoRA
# targets are the query and value projections only.
ALL_TRANSFORMER_DENSE_LAYERS = (
    "query",
    "key",
    "value",
    "attention_output",
    "feedforward_intermediate_dense",
    "feedforward_output_dense",
)

# The LoRA target choices of the training scripts (`--lora-targets`), as a model's `enable_lora` takes them:
# its family names the layers of each (`families.registry.lora_layer_names`; ModernBERT's fused "qkv", …).
LORA_TARGETS = {"attention": "attention", "all": "all"}


def enable_backbone_lora(backbone, rank, target_layer_names=None):
    """Adds rank-`rank` LoRA adapters to the backbone's attention query and value
    projections (keras-hub `Backbone.enable_lora`), or to the layers named in
    `target_layer_names` (e.g. `ALL_TRANSFORMER_DENSE_LAYERS`): W' = W + B·A, A and B
    trained, W frozen.

    keras-hub leaves the adapted layers' biases trainable; they are frozen here so that the
    LoRA kernels are the whole delta of the backbone (heads outside it stay trainable).
    """
    if not isinstance(rank, int) or rank < 1:
        raise ValueError(f"rank must be a positive int, got {rank!r}")
    if isinstance(target_layer_names, str):
        raise ValueError(
            f"target_layer_names must be layer names, got {target_layer_names!r}: a model's enable_lora takes "
            '"attention" or "all" and names its family\'s layers'
        )
    backbone.enable_lora(rank, target_layer_names=target_layer_names)
    for variable in backbone.trainable_weights:
        if "lora_kernel" not in variable.path:
            variable.trainable = False


def merged_backbone_weights(backbone):
    """The backbone's (or any model's) weights by path, with each LoRA adapter merged into its kernel:
    W' = W + (α / r)·A·B (the kernel a LoRA-enabled Keras `Dense`/`EinsumDense` computes with),
    and the `lora_kernel_*` variables left out. A backbone without LoRA gives its own weights.

    >>> import keras_hub
    >>> backbone = keras_hub.models.BertBackbone(100, 1, 2, 8, 16, max_sequence_length=8)
    >>> plain = merged_backbone_weights(backbone)
    >>> enable_backbone_lora(backbone, rank=2)
    >>> sorted(merged_backbone_weights(backbone)) == sorted(plain)
    True
    """
    merged = {
        layer._kernel.path: layer.kernel
        for layer in backbone._flatten_layers()
        if getattr(layer, "lora_enabled", False)
    }
    return {
        variable.path: keras.ops.convert_to_numpy(merged.get(variable.path, variable))
        for variable in backbone.weights
        if "lora_kernel" not in variable.path
    }


def lora_factors(delta, rank, scale=1.0):
    """LoRA factors A [*delta.shape[:-1], rank] and B [rank, delta.shape[-1]] with s·A·B the best
    rank-`rank` approximation of the kernel update `delta` (as a matrix of its last axis against
    the others; s = `scale`, a layer's lora_alpha / lora_rank): the truncated SVD
    s·A·B = Σ_{i ≤ r} σ_i·u_i·v_iᵀ (Eckart–Young), A = U_r·Σ_r, B = V_rᵀ / s. Returns
    (A, B, every singular value σ of `delta`, largest first): σ_{r+1}, … are what the factors drop.

    >>> a, b, s = lora_factors(np.outer([1.0, 2.0], [3.0, 0.0, 1.0]), rank=1)
    >>> a.shape, b.shape, np.allclose(a @ b, np.outer([1.0, 2.0], [3.0, 0.0, 1.0]))
    ((2, 1), (1, 3), True)
    """
    rows = np.asarray(delta, np.float64).reshape(-1, delta.shape[-1])
    u, singular_values, vt = np.linalg.svd(rows, full_matrices=False)
    kept = min(rank, len(singular_values))
    a = np.zeros((rows.shape[0], rank))
    b = np.zeros((rank, rows.shape[1]))
    a[:, :kept] = u[:, :kept] * singular_values[:kept]
    b[:kept] = vt[:kept] / scale
    return a.reshape(delta.shape[:-1] + (rank,)).astype(np.float32), b.astype(np.float32), singular_values


def load_merged_weights(target, weights, source="the weights"):
    """Sets `target`'s weights to `weights` ({path: array} of a model of its architecture whose LoRA
    updates are merged into its kernels: `merged_backbone_weights`, or a `.keras` file's, which Keras
    saves merged). In each LoRA-enabled `Dense`/`EinsumDense` of `target` the update ΔW =
    weights[kernel] − the layer's own (pinned base) kernel becomes its adapters' best rank-r
    approximation (`lora_factors`); every other weight is copied by path.

    Returns [(layer, singular values of its ΔW)] for the adapted layers: σ_{r+1}, … are what the
    adapters could not hold.

    Raises:
        ValueError: "`source` has no weight …", naming a weight of `target` that `weights` lacks or
            holds in another shape.
    """
    adapted, spectra = set(), []
    for layer in target._flatten_layers():
        if not (isinstance(layer, (keras.layers.EinsumDense, keras.layers.Dense)) and layer.lora_enabled):
            continue
        base = keras.ops.convert_to_numpy(layer._kernel)
        merged = _required_weight(weights, layer._kernel.path, base.shape, source)
        a, b, singular_values = lora_factors(merged - base, layer.lora_rank, layer.lora_alpha / layer.lora_rank)
        layer.lora_kernel_a.assign(a)
        layer.lora_kernel_b.assign(b)
        adapted.update({layer._kernel.path, layer.lora_kernel_a.path, layer.lora_kernel_b.path})
        spectra.append((layer, singular_values))
    for variable in target.weights:
        if variable.path not in adapted:
            variable.assign(_required_weight(weights, variable.path, tuple(variable.shape), source))
    return spectra


def _required_weight(weights, path, shape, source):
    """weights[path], checked to exist with `shape`."""
    if path not in weights or tuple(weights[path].shape) != tuple(shape):
        found = tuple(weights[path].shape) if path in weights else "no such weight"
        raise ValueError(f"{source} has no weight {path} of shape {tuple(shape)} ({found})")
    return weights[path]


def copy_backbone_weights(source, target):
    """Sets `target`'s backbone weights to `source`'s, LoRA adapters merged
    (`merged_backbone_weights`): e.g. a DSE student started from a fine-tuned SBERT. Both must
    have the same architecture; `target` must not have LoRA enabled yet.

    Raises:
        ValueError: naming the first weight whose path or shape differs.
    """
    weights = merged_backbone_weights(source)
    variables = target.weights
    if any("lora_kernel" in v.path for v in variables):
        raise ValueError("copy the weights before enabling LoRA on the target backbone")
    missing = sorted({v.path for v in variables} ^ set(weights))
    if missing:
        raise ValueError(f"the backbones differ: weight {missing[0]!r} is in only one of them")
    for variable in variables:
        if tuple(variable.shape) != weights[variable.path].shape:
            raise ValueError(
                f"the backbones differ: {variable.path} is {tuple(variable.shape)} in the target, "
                f"{weights[variable.path].shape} in the source"
            )
        variable.assign(weights[variable.path])
