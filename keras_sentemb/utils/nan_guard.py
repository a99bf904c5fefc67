"""NaNGuard: stop at the first non-finite loss and keep the last good weights on disk."""

import math
import os

import keras
import numpy as np


class NaNGuard(keras.callbacks.Callback):
    """Stops training when a batch loss is NaN or infinite, with a message saying where.

    With `checkpoint_path` (a `.weights.h5` file) the model's weights are written there
    atomically at the end of every epoch whose losses were all finite, so a NaN never
    overwrites the last good checkpoint. With `restore_on_nan=True` (default, needs the
    checkpoint) the model is put back to those weights when it stops, from an in-memory copy of
    the raw `get_weights()` (exact for LoRA layers too: `load_weights` of a `.weights.h5` would
    merge the adapters into the frozen kernels and zero them, so that `save_lora_weights` after
    the stop would save nothing).

    `SBERT.fit`, `CrossEncoder.fit` and `DSE.fit` add a `NaNGuard()` unless the callbacks
    already hold one (`with_nan_guard`).
    """

    def __init__(self, checkpoint_path=None, restore_on_nan=True):
        super().__init__()
        if checkpoint_path is not None and not str(checkpoint_path).endswith(".weights.h5"):
            raise ValueError(f"checkpoint_path must end with .weights.h5, got {checkpoint_path}")
        self.checkpoint_path = None if checkpoint_path is None else os.fspath(checkpoint_path)
        self.restore_on_nan = restore_on_nan
        self.stopped_at = None  # (epoch, batch) of the first non-finite loss
        self.last_good_epoch = None
        self._last_good_weights = None
        self._epoch = 0

    def on_epoch_begin(self, epoch, logs=None):
        self._epoch = epoch

    def on_train_batch_end(self, batch, logs=None):
        loss = (logs or {}).get("loss")
        if loss is None or self.stopped_at is not None:
            return
        if not math.isfinite(float(loss)):
            self.stopped_at = (self._epoch, batch)
            self.model.stop_training = True
            where = f"epoch {self._epoch + 1}, batch {batch + 1}"
            if self.checkpoint_path and self.last_good_epoch is not None:
                kept = f"the last good weights (epoch {self.last_good_epoch + 1}) are in {self.checkpoint_path}"
            else:
                kept = "no good checkpoint was written yet"
            print(
                f"\nNaNGuard: the loss became {float(loss)} at {where}; training stopped; {kept}. "
                "Try a lower learning rate or check the data for bad labels."
            )

    def on_epoch_end(self, epoch, logs=None):
        if self.stopped_at is not None or not self.checkpoint_path:
            return
        loss = (logs or {}).get("loss")
        if loss is not None and not math.isfinite(float(loss)):
            return
        folder = os.path.dirname(os.path.abspath(self.checkpoint_path))
        os.makedirs(folder, exist_ok=True)
        staging = os.path.join(folder, f".{os.path.basename(self.checkpoint_path)[:-11]}.tmp.weights.h5")
        self.model.save_weights(staging)
        os.replace(staging, self.checkpoint_path)
        self.last_good_epoch = epoch
        if self.restore_on_nan:
            self._last_good_weights = [np.array(w) for w in self.model.get_weights()]

    def on_train_end(self, logs=None):
        if self.stopped_at is not None and self.restore_on_nan and self._last_good_weights is not None:
            self.model.set_weights(self._last_good_weights)


def with_nan_guard(callbacks):
    """`callbacks` as a list, with a `NaNGuard()` appended unless one is already there."""
    callbacks = list(callbacks or [])
    if not any(isinstance(c, NaNGuard) for c in callbacks):
        callbacks.append(NaNGuard())
    return callbacks
