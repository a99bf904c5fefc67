"""Recovering LoRA factors from a saved model whose LoRA updates were merged.

Keras saves an adapted `EinsumDense` or `Dense` with its effective kernel W + s·A·B (s = α/r) and no
adapters, so a LoRA-trained model loaded from a `.keras` file looks fully fine-tuned. The
difference from the pinned base kernel W is still of rank ≤ r along the last axis, so a
truncated SVD gives back factors A, B with s·A·B equal to it (up to float rounding): the
zoo then stores r·(in + out) numbers per adapted matrix instead of in·out.

A model trained in mixed bfloat16 is saved with its merged kernels rounded to bfloat16 (every value
keeps 8 significant bits), so the difference is then rank r plus rounding noise of at most 2⁻⁸·|W| a
value: the truncated SVD keeps the update and drops most of the noise. There the check is on the
spectrum instead: singular value r + 1 must not exceed what noise of that size reaches,
2⁻⁸/√3 · (largest row norm + largest column norm of W) (rounding errors spread evenly over a value's
last place, so their mean square is a third of the largest), while a change of higher rank puts it far
above (all-mpnet-base-v2's 72 kernels after a rank-16 fit: at most 0.61 of that bound).
"""

import numpy as np

from keras_sentemb.layers.backbone_lora import load_merged_weights

# Rounding to bfloat16 (8 significant bits) moves a value by at most 2⁻⁸ of it.
_BFLOAT16_ROUNDING = 2.0**-8


def _rounding_noise_floor(merged, shape):
    """The largest singular value that bfloat16 rounding noise of the `merged` kernel (as an
    m × n matrix) reaches: 2⁻⁸/√3 · (largest row norm + largest column norm)."""
    rows = merged.astype(np.float64).reshape(shape)
    largest = np.sqrt(np.square(rows).sum(axis=1)).max() + np.sqrt(np.square(rows).sum(axis=0)).max()
    return _BFLOAT16_ROUNDING / 3**0.5 * float(largest)


def _is_bfloat16(array):
    """Whether every value of a float32 array is a bfloat16 value (its low 16 bits are zero)."""
    return array.dtype == np.float32 and not np.any(array.view(np.uint32) & 0xFFFF)


def restore_lora_factors(trained, target, tolerance=1e-4):
    """Copies `trained` (LoRA merged) into `target` (same architecture, pinned base weights,
    LoRA enabled): each adapted kernel's difference from the base becomes `target`'s
    lora_kernel_a/b; every other weight is copied by path. Returns the largest absolute
    error of the re-factored kernels (for bfloat16-saved kernels: how far the first dropped
    singular value exceeds the rounding noise's); raises ValueError when it exceeds `tolerance`
    (the difference was not low-rank: the model was not trained with LoRA of this rank)."""
    values = {variable.path: variable.numpy() for variable in trained.weights}
    worst = 0.0
    for layer, s in load_merged_weights(target, values, source="the trained model"):
        rank, scale = layer.lora_rank, layer.lora_alpha / layer.lora_rank
        merged = values[layer._kernel.path]
        rows = (merged - layer._kernel.numpy()).astype(np.float64).reshape(-1, merged.shape[-1])
        if _is_bfloat16(merged):  # rank r + rounding noise: judged by the first dropped singular value
            dropped = float(s[rank]) if len(s) > rank else 0.0
            worst = max(worst, dropped - _rounding_noise_floor(merged, rows.shape), 0.0)
        else:
            a = layer.lora_kernel_a.numpy().reshape(-1, rank).astype(np.float64)
            worst = max(worst, float(np.abs(scale * a @ layer.lora_kernel_b.numpy() - rows).max()))
    if worst > tolerance:
        raise ValueError(
            f"the trained kernels differ from the base by more than a rank-{rank} update "
            f"(error {worst:.2e}); was the model trained with LoRA of this rank?"
        )
    return worst
