"""CheckpointTensors: named tensors of a safetensors folder, assigned on worker threads, every one
done (or its error raised) when the `with` block ends."""

import keras
import numpy as np
import pytest
from safetensors.numpy import save_file

from keras_sentemb.pretrained.checkpoint_tensors import CheckpointTensors


@pytest.fixture
def folder(tmp_path):
    rng = np.random.default_rng(0)
    save_file(
        {f"bert.layer.{i}.weight": rng.normal(size=(3, 5)).astype(np.float32) for i in range(20)},
        str(tmp_path / "model.safetensors"),
    )
    return tmp_path


def test_every_assignment_is_done_when_the_block_ends(folder):
    layers = [keras.layers.Dense(3) for _ in range(20)]
    for layer in layers:
        layer.build((None, 5))
    with CheckpointTensors(folder, prefixes=("bert.",)) as tensors:
        for index, layer in enumerate(layers):
            tensors.assign(layer.kernel, f"layer.{index}.weight", np.transpose)
        expected = [tensors.get(f"layer.{index}.weight").T for index in range(20)]
    for layer, value in zip(layers, expected):
        np.testing.assert_array_equal(layer.kernel.numpy(), value)


def test_a_missing_tensor_is_a_key_error_at_the_call(folder):
    variable = keras.Variable(np.zeros((3, 5), np.float32))
    with CheckpointTensors(folder, prefixes=("bert.",)) as tensors:
        with pytest.raises(KeyError, match="no tensor 'layer.99.weight'"):
            tensors.assign(variable, "layer.99.weight")


def test_a_shape_that_does_not_fit_raises_when_the_block_ends_naming_the_tensor(folder):
    variable = keras.Variable(np.zeros((5, 3), np.float32), name="kernel")
    with pytest.raises(ValueError, match=r"'layer.0.weight' has shape \(3, 5\), the model's .* needs \(5, 3\)"):
        with CheckpointTensors(folder, prefixes=("bert.",)) as tensors:
            tensors.assign(variable, "layer.0.weight")
    assert not variable.numpy().any()
