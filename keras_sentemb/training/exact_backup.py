"""ExactBackupAndRestore: Keras's BackupAndRestore, with the raw variables backed up, so LoRA training resumes exactly."""

import json
import os

import keras
import numpy as np

from keras_sentemb.utils.atomic_files import atomic_open


class ExactBackupAndRestore(keras.callbacks.BackupAndRestore):
    """`keras.callbacks.BackupAndRestore` whose backup holds every model and optimizer variable
    as it is, so that a killed run resumes where it stopped — LoRA adapters included.

    Keras's callback backs up with `model.save_weights`, and a LoRA-enabled `Dense` saves its
    merged kernel W + B·A there; on restore it loads that into the frozen kernel and sets A and
    B to zero. The restored model computes the same function, but what trains from then on is a
    new adapter started at zero (pushed by the restored Adam moments), and the frozen kernel now
    holds the adapter of the epochs before the kill: a run resumed once ends with an update of
    rank up to 2r, of which the saved adapters (`save_lora_weights`) hold only the second part.
    This callback writes `model.get_weights()` (raw: W, A, B as they are) and the optimizer's
    variables (step count, moments) to one `.npz`, atomically, and puts them back with
    `set_weights` / `assign`. Everything else (when to save, the epoch to resume at, removal of
    the backup when training ends) is Keras's.

    Example:
    >>> import tempfile
    >>> model = keras.Sequential([keras.Input((3,)), keras.layers.Dense(2)])
    >>> model.layers[0].enable_lora(1)
    >>> model.compile(keras.optimizers.Adam(0.1), "mse")
    >>> backup = ExactBackupAndRestore(tempfile.mkdtemp())
    >>> x, y = np.ones((4, 3)), np.zeros((4, 2))
    >>> _ = model.fit(x, y, epochs=1, verbose=0, callbacks=[backup])
    >>> backup._save_model()  # what an epoch end writes
    >>> a = model.layers[0].lora_kernel_a.numpy()
    >>> _ = model.layers[0].lora_kernel_a.assign(np.zeros_like(a))
    >>> backup._load_model()  # what the next fit's start reads
    >>> bool(np.array_equal(model.layers[0].lora_kernel_a.numpy(), a))
    True
    """

    def __init__(self, backup_dir, save_freq="epoch", double_checkpoint=False, delete_checkpoint=True):
        super().__init__(
            backup_dir, save_freq=save_freq, double_checkpoint=double_checkpoint, delete_checkpoint=delete_checkpoint
        )
        self._weights_path = os.path.join(self.backup_dir, "latest.variables.npz")
        self._prev_weights_path = self._weights_path + ".bkp"

    def _save_model(self):
        os.makedirs(self.backup_dir, exist_ok=True)
        if self.double_checkpoint and os.path.exists(self._weights_path):
            with open(self._weights_path, "rb") as source, atomic_open(self._prev_weights_path, "wb") as target:
                target.write(source.read())
        model_weights = self.model.get_weights()
        optimizer = self.model.optimizer
        optimizer_values = [v.numpy() for v in optimizer.variables] if optimizer is not None else []
        arrays = {f"model_{i}": w for i, w in enumerate(model_weights)}
        arrays.update({f"optimizer_{i}": w for i, w in enumerate(optimizer_values)})
        with atomic_open(self._weights_path, "wb") as f:
            np.savez(f, model_count=len(model_weights), optimizer_count=len(optimizer_values), **arrays)
        # Keras writes the epoch / batch metadata next to it; the weights file is the one read first
        self._write_metadata()

    def _write_metadata(self):
        with atomic_open(self._training_metadata_path, "w") as f:
            json.dump({"epoch": self._current_epoch, "batch": self._last_batch_seen}, f)

    def _load_model(self):
        if not self.model.built:
            raise ValueError(
                f"ExactBackupAndRestore needs a built model before fit(); {self.model} is unbuilt: "
                "call it on a batch of data first"
            )
        if os.path.exists(self._weights_path):
            optimizer = self.model.optimizer
            if optimizer is not None and not optimizer.built:
                optimizer.build(self.model.trainable_variables)
            with np.load(self._weights_path) as saved:
                model_count, optimizer_count = int(saved["model_count"]), int(saved["optimizer_count"])
                current = self.model.weights
                if model_count != len(current):
                    raise ValueError(
                        f"{self._weights_path}: the backup holds {model_count} model variables, the model has "
                        f"{len(current)}: it was written by another model; delete {self.backup_dir} to start afresh"
                    )
                self.model.set_weights([saved[f"model_{i}"] for i in range(model_count)])
                if optimizer is not None:
                    if optimizer_count != len(optimizer.variables):
                        raise ValueError(
                            f"{self._weights_path}: {optimizer_count} optimizer variables backed up, the "
                            f"optimizer has {len(optimizer.variables)}; delete {self.backup_dir} to start afresh"
                        )
                    for i, variable in enumerate(optimizer.variables):
                        variable.assign(saved[f"optimizer_{i}"])
        if os.path.exists(self._training_metadata_path):
            with open(self._training_metadata_path, encoding="utf-8") as f:
                self.model._initial_epoch = json.load(f)["epoch"]
