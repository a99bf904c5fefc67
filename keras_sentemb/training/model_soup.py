"""Model soups: one model whose weights are the average of several fine-tuned runs.

Fine-tuned runs that start from the same pretrained weights and differ in their seed (data
order, initialisation of the adapters, sampled silver pairs) end in one basin of the loss, and
the uniform average of their weights (Wortsman et al. 2022, "Model soups")

    θ_soup = (1/K) · Σ_k θ_k

scored above each of them on held-out data in that paper's fine-tunes, at the inference cost of one
model. Measure it on yours: the zoo's DSE soup of four seeds gained 0.18 over its best run on STS-B
dev and nothing over their mean on test (docs/distillation.md); what it buys for certain is a result
that does not depend on which seed was drawn.

For LoRA-trained runs the average is taken over the merged kernels W + s·A_k·B_k
(`merged_backbone_weights`), so the soup's update ΔW = (1/K)·Σ_k s·A_k·B_k may have rank up to
K·r. `load_soup` stores its best rank-r approximation (truncated SVD, Eckart–Young) in the
adapters of a LoRA-enabled target, so the soup is stored at the cost of one run, and reports the
share of ΔW's energy (squared Frobenius norm) the truncation drops.

Example:
(Not run as a doctest: it needs trained models from the surrounding text.)
    runs = [keras.saving.load_model(f"out/dse_seed{k}/dse.keras") for k in range(3)]
    target = DSE.from_pretrained("minilm-l6", psi="checkpoint", unit_features=True)
    target.enable_lora(32, ALL_TRANSFORMER_DENSE_LAYERS)
    dropped = load_soup(target, soup_weights(runs))   # four DSE runs: 0.32 of ΔW's energy
"""

import numpy as np

from keras_sentemb.layers.backbone_lora import load_merged_weights, merged_backbone_weights


def soup_weights(models):
    """{weight path: (1/K)·Σ_k value_k} over `models` (K ≥ 2, the same architecture), LoRA
    adapters merged into their kernels. A weight that is not a float (a random generator's
    state) is taken from the first model.

    Raises:
        ValueError: fewer than two models, or naming the first weight whose path or shape differs.
    """
    models = list(models)
    if len(models) < 2:
        raise ValueError(f"a soup needs at least two models, got {len(models)}")
    runs = [merged_backbone_weights(model) for model in models]
    first = runs[0]
    for k, run in enumerate(runs[1:], 2):
        differing = sorted(set(first) ^ set(run))
        if differing:
            raise ValueError(f"model {k} differs from model 1: weight {differing[0]!r} is in only one of them")
        for path, value in first.items():
            if run[path].shape != value.shape:
                raise ValueError(f"model {k} differs from model 1: {path} is {run[path].shape}, not {value.shape}")
    return {
        path: np.mean([run[path] for run in runs], axis=0, dtype=np.float64).astype(value.dtype)
        if np.issubdtype(value.dtype, np.floating)
        else value
        for path, value in first.items()
    }


def load_soup(target, weights):
    """Sets `target`'s weights to the soup `weights` (`soup_weights`). In each LoRA-enabled
    layer of `target` the soup's kernel minus the layer's own (pinned base) kernel becomes the
    adapters' best rank-r approximation; every other weight is copied by path
    (`load_merged_weights`).

    Returns the largest share, over the adapted kernels, of the update's energy ‖ΔW‖²_F that
    the rank-r truncation drops (0 when the soup's updates fit the rank; `target` without LoRA: 0).

    Raises:
        ValueError: naming a weight of `target` that `weights` lacks or holds in another shape.
    """
    dropped = 0.0
    for layer, singular_values in load_merged_weights(target, weights, source="the soup"):
        energy = float(np.square(singular_values).sum())
        if energy > 0:
            dropped = max(dropped, float(np.square(singular_values[layer.lora_rank :]).sum()) / energy)
    return dropped
