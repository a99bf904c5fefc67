"""Model soups: the uniform average of runs' weights, stored whole or as LoRA of a given rank."""

import keras
import numpy as np
import pytest

from keras_sentemb.layers.backbone_lora import merged_backbone_weights
from keras_sentemb.training.model_soup import load_soup, soup_weights
from tests.conftest import make_tiny_encoder

TEXTS = ["the cat sat on the mat", "a dog ran", "rain and storm"]


def lora_run(rank, seed):
    """The tiny encoder (seed 0 weights) with LoRA on query and value and random adapters."""
    run = make_tiny_encoder(seed=0)
    run.backbone.enable_lora(rank)
    rng = np.random.default_rng(seed)
    for variable in run.weights:
        if "lora_kernel" in variable.path:
            variable.assign(rng.normal(scale=0.3, size=variable.shape))
    return run


def adapted_kernels(model):
    return {layer._kernel.path: layer for layer in model._flatten_layers() if getattr(layer, "lora_enabled", False)}


def test_the_soup_of_plain_runs_is_the_mean_of_their_weights():
    runs = [make_tiny_encoder(seed=seed) for seed in (1, 2, 3)]
    target = make_tiny_encoder(seed=4)

    dropped = load_soup(target, soup_weights(runs))

    assert dropped == 0.0
    for variable in target.weights:
        expected = np.mean([run.weights[_index(run, variable)].numpy() for run in runs], axis=0)
        np.testing.assert_allclose(variable.numpy(), expected, rtol=1e-6, atol=1e-7)


def _index(model, variable):
    return [v.path for v in model.weights].index(variable.path)


def test_lora_runs_are_averaged_as_merged_kernels_and_fit_exactly_in_the_sum_of_their_ranks():
    runs = [lora_run(rank=2, seed=seed) for seed in (1, 2)]
    merged = [merged_backbone_weights(run) for run in runs]
    exact = make_tiny_encoder(seed=0)
    exact.backbone.enable_lora(4)  # rank 2 + rank 2: the averaged update fits

    dropped = load_soup(exact, soup_weights(runs))

    assert dropped < 1e-10
    for path, layer in adapted_kernels(exact).items():
        np.testing.assert_allclose(
            keras.ops.convert_to_numpy(layer.kernel), (merged[0][path] + merged[1][path]) / 2, atol=1e-5
        )
    assert not np.allclose(exact.encode(TEXTS), runs[0].encode(TEXTS), atol=1e-3)


def test_at_a_lower_rank_the_soup_keeps_the_best_approximation_and_reports_the_energy_it_drops():
    runs = [lora_run(rank=2, seed=seed) for seed in (1, 2)]
    weights = soup_weights(runs)
    target = make_tiny_encoder(seed=0)
    target.backbone.enable_lora(2)
    base = {path: keras.ops.convert_to_numpy(layer._kernel) for path, layer in adapted_kernels(target).items()}

    dropped = load_soup(target, weights)

    shares = []
    for path, layer in adapted_kernels(target).items():
        delta = (weights[path] - base[path]).reshape(-1, base[path].shape[-1])
        singular_values = np.linalg.svd(delta, compute_uv=False)
        stored = (keras.ops.convert_to_numpy(layer.kernel) - base[path]).reshape(delta.shape)
        # Eckart–Young: the best rank-2 approximation misses exactly the dropped singular values
        np.testing.assert_allclose(np.linalg.norm(delta - stored) ** 2, np.sum(singular_values[2:] ** 2), rtol=1e-3)
        shares.append(np.sum(singular_values[2:] ** 2) / np.sum(singular_values**2))
    assert 0 < dropped == pytest.approx(max(shares), rel=1e-6)


def test_runs_of_different_architectures_or_fewer_than_two_are_refused():
    plain = make_tiny_encoder(seed=1)
    with pytest.raises(ValueError, match="at least two models, got 1"):
        soup_weights([plain])
    headed = make_tiny_encoder(seed=1, dense_layers=[{"units": 8, "activation": "tanh"}])
    with pytest.raises(ValueError, match="model 2 differs from model 1: weight .* is in only one of them"):
        soup_weights([plain, headed])
    with pytest.raises(ValueError, match="the soup has no weight .*dense"):
        load_soup(headed, soup_weights([plain, make_tiny_encoder(seed=2)]))
