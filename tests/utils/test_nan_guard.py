"""A NaN loss stops training, keeps the last good checkpoint and restores its weights."""

import os

import keras
import numpy as np
from keras import ops

from keras_sentemb.training import NaNGuard

POISON = keras.Variable(0.0, trainable=False)


def poisoned_mse(y_true, y_pred):
    error = ops.mean(ops.square(y_true - y_pred))
    return ops.where(POISON > 0, ops.convert_to_tensor(np.nan, error.dtype), error)


class PoisonFromEpoch(keras.callbacks.Callback):
    def __init__(self, epoch):
        super().__init__()
        self.epoch = epoch
        self.weights_after_epoch = {}

    def on_epoch_begin(self, epoch, logs=None):
        POISON.assign(1.0 if epoch >= self.epoch else 0.0)

    def on_epoch_end(self, epoch, logs=None):
        self.weights_after_epoch[epoch] = [np.array(w) for w in self.model.get_weights()]


def test_stops_at_the_first_nan_and_keeps_the_last_good_checkpoint(tmp_path, capsys):
    keras.utils.set_random_seed(0)
    model = keras.Sequential([keras.Input((3,)), keras.layers.Dense(1)])
    model.compile(optimizer=keras.optimizers.SGD(0.1), loss=poisoned_mse)
    x, y = np.random.rand(16, 3).astype("float32"), np.random.rand(16, 1).astype("float32")
    checkpoint = str(tmp_path / "good.weights.h5")
    guard, poison = NaNGuard(checkpoint), PoisonFromEpoch(2)
    model.fit(x, y, batch_size=4, epochs=5, callbacks=[poison, guard], verbose=0)

    assert guard.stopped_at == (2, 0) and guard.last_good_epoch == 1
    assert sorted(poison.weights_after_epoch) == [0, 1, 2]  # epochs 4 and 5 never ran
    assert "loss became nan at epoch 3, batch 1" in capsys.readouterr().out
    for restored, good in zip(model.get_weights(), poison.weights_after_epoch[1]):
        np.testing.assert_array_equal(restored, good)
    assert os.listdir(tmp_path) == ["good.weights.h5"]  # no temporary file left
    POISON.assign(0.0)


def test_a_lora_model_gets_its_adapters_back_not_merged_kernels(tmp_path):
    keras.utils.set_random_seed(1)
    model = keras.Sequential([keras.Input((3,)), keras.layers.Dense(2)])
    model.layers[0].enable_lora(1)
    model.compile(optimizer=keras.optimizers.SGD(0.1), loss=poisoned_mse)
    x, y = np.random.rand(16, 3).astype("float32"), np.random.rand(16, 2).astype("float32")
    guard, poison = NaNGuard(str(tmp_path / "good.weights.h5")), PoisonFromEpoch(2)
    model.fit(x, y, batch_size=4, epochs=4, callbacks=[poison, guard], verbose=0)

    good = poison.weights_after_epoch[1]
    assert guard.stopped_at == (2, 0)
    for restored, expected in zip(model.get_weights(), good):  # kernel, bias, lora_a, lora_b as trained
        np.testing.assert_array_equal(restored, expected)
    assert np.abs(model.layers[0].lora_kernel_b.numpy()).max() > 0  # the adapter is still there
    POISON.assign(0.0)
