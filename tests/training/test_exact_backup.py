"""A LoRA fit interrupted after two epochs and resumed from `ExactBackupAndRestore` ends with
exactly the weights of the run that was never interrupted, adapters included; resumed from Keras's
own `BackupAndRestore` it does not (its backup merges the adapters into the frozen kernels and
restarts them at zero), which is why the training scripts use ours."""

import keras
import numpy as np
import pytest

from keras_sentemb.training.exact_backup import ExactBackupAndRestore

EPOCHS = 4


class Interrupt(keras.callbacks.Callback):
    """Raises when `epoch` begins, as a kill between two epochs would stop the process."""

    def __init__(self, epoch):
        super().__init__()
        self.epoch = epoch

    def on_epoch_begin(self, epoch, logs=None):
        if epoch == self.epoch:
            raise KeyboardInterrupt(f"killed before epoch {epoch + 1}")


def lora_model():
    """Two dense layers with rank-2 adapters on frozen kernels, the same start every call."""
    keras.utils.set_random_seed(7)
    model = keras.Sequential([keras.Input((6,)), keras.layers.Dense(5, activation="tanh"), keras.layers.Dense(3)])
    for layer in model.layers:
        layer.enable_lora(2)
    model.compile(keras.optimizers.AdamW(3e-2), "mse")
    return model


def data():
    rng = np.random.default_rng(3)
    return rng.normal(size=(32, 6)).astype("float32"), rng.normal(size=(32, 3)).astype("float32")


def weights_after(callbacks_of_run):
    """Final raw weights of a fit to EPOCHS epochs made of the runs `callbacks_of_run` (one
    list of callbacks per process; every run but the last is interrupted)."""
    x, y = data()
    for callbacks in callbacks_of_run:
        model = lora_model()  # a new process builds the model again
        try:
            model.fit(x, y, batch_size=8, epochs=EPOCHS, shuffle=False, verbose=0, callbacks=callbacks)
        except KeyboardInterrupt:
            continue
    return [w.numpy() for w in model.weights], model


def largest_difference(first, second):
    return max(float(np.abs(a - b).max()) for a, b in zip(first, second))


def test_a_lora_fit_resumed_from_the_exact_backup_ends_with_the_uninterrupted_weights(tmp_path):
    uninterrupted, _ = weights_after([[]])
    backup = str(tmp_path / "backup")
    resumed, model = weights_after([[ExactBackupAndRestore(backup), Interrupt(2)], [ExactBackupAndRestore(backup)]])
    assert largest_difference(resumed, uninterrupted) == 0.0
    assert all(np.abs(layer.lora_kernel_b.numpy()).max() > 0 for layer in model.layers)  # trained adapters


def test_kerass_own_backup_would_restart_the_adapters(tmp_path):
    """The check above can fail: Keras's BackupAndRestore resumes from merged kernels."""
    uninterrupted, _ = weights_after([[]])
    backup = str(tmp_path / "backup")
    resumed, _ = weights_after(
        [[keras.callbacks.BackupAndRestore(backup), Interrupt(2)], [keras.callbacks.BackupAndRestore(backup)]]
    )
    assert largest_difference(resumed, uninterrupted) > 1e-3


def test_a_backup_of_another_model_is_refused_with_the_folder_to_delete(tmp_path):
    backup = str(tmp_path / "backup")
    x, y = data()
    try:
        lora_model().fit(x, y, epochs=2, verbose=0, callbacks=[ExactBackupAndRestore(backup), Interrupt(1)])
    except KeyboardInterrupt:
        pass
    other = keras.Sequential([keras.Input((6,)), keras.layers.Dense(3)])
    other.compile("adam", "mse")
    with pytest.raises(ValueError, match="another model.*delete .*backup"):
        other.fit(x, y, epochs=2, verbose=0, callbacks=[ExactBackupAndRestore(backup)])
