"""Recovering LoRA factors from a saved model whose LoRA updates were merged.

Keras saves an adapted `EinsumDense` or `Dense` with its effective kernel W + s·A·B (s = α/r) and no
adapters, so a LoRA-trained model loaded from a `.keras` file looks fully fine-tuned. The
difference from the pinned base kernel W is still of rank ≤ r along the last axis, so a
truncated SVD gives back factors A, B with s·A·B equal to it (up to float rounding): the
zoo then stores r·(in + out) numbers per adapted matrix instead of in·out.
"""

import keras
import numpy as np


def restore_lora_factors(trained, target, tolerance=1e-4):
    """Copies `trained` (LoRA merged) into `target` (same architecture, pinned base weights,
    LoRA enabled): each adapted kernel's difference from the base becomes `target`'s
    lora_kernel_a/b; every other weight is copied by path. Returns the largest absolute
    error of the re-factored kernels; raises ValueError when it exceeds `tolerance` (the
    difference was not low-rank: the model was not trained with LoRA of this rank)."""
    values = {variable.path: variable.numpy() for variable in trained.weights}
    adapted = set()
    worst = 0.0
    for layer in target._flatten_layers():
        if not (isinstance(layer, (keras.layers.EinsumDense, keras.layers.Dense)) and layer.lora_enabled):
            continue
        base = layer._kernel.numpy()
        delta = (values[layer._kernel.path] - base).astype(np.float64)
        rank, scale = layer.lora_rank, layer.lora_alpha / layer.lora_rank
        rows = delta.reshape(-1, delta.shape[-1])
        u, s, vt = np.linalg.svd(rows, full_matrices=False)
        a = (u[:, :rank] * s[:rank]).reshape(delta.shape[:-1] + (rank,))
        b = vt[:rank] / scale
        rebuilt = scale * a.reshape(-1, rank) @ b
        worst = max(worst, float(np.abs(rebuilt - rows).max()))
        layer.lora_kernel_a.assign(a.astype(np.float32))
        layer.lora_kernel_b.assign(b.astype(np.float32))
        adapted.update({layer._kernel.path, layer.lora_kernel_a.path, layer.lora_kernel_b.path})
    if worst > tolerance:
        raise ValueError(
            f"the trained kernels differ from the base by more than a rank-{rank} update "
            f"(error {worst:.2e}); was the model trained with LoRA of this rank?"
        )
    for variable in target.weights:
        if variable.path in adapted:
            continue
        if variable.path not in values or values[variable.path].shape != tuple(variable.shape):
            raise ValueError(f"the trained model has no weight {variable.path} {tuple(variable.shape)}")
        variable.assign(values[variable.path])
    return worst
