"""TrainingClock: the seconds `fit` has spent training, summed over a run that was killed and resumed."""

import json
import os
import time

import keras

from keras_sentemb.utils.atomic_files import atomic_open
from keras_sentemb.utils.checked_files import read_json


class TrainingClock(keras.callbacks.Callback):
    """Adds up the wall seconds of `fit`'s epochs in `path` (a JSON file), across processes.

    seconds = Σ over finished epochs e of (end_e − start_e), where the first epoch of a process
    starts at its `on_train_begin`. Each epoch end rewrites `path` atomically with the total
    and the epoch count, so a run that `keras.callbacks.BackupAndRestore` resumes after a kill
    reports the training time of the whole run, not just of its last process. Place it after
    the `BackupAndRestore` callback: an epoch counts once it is backed up (the seconds of an
    epoch cut short by the kill, which the resumed run repeats, are not counted). `resume=False`
    (a fresh run: no backup to resume from) starts again from zero.

    Example:
    >>> import tempfile, numpy as np
    >>> path = os.path.join(tempfile.mkdtemp(), "clock.json")
    >>> model = keras.Sequential([keras.Input((1,)), keras.layers.Dense(1)])
    >>> model.compile("sgd", "mse")
    >>> clock = TrainingClock(path)
    >>> _ = model.fit(np.ones((4, 1)), np.ones((4, 1)), epochs=2, verbose=0, callbacks=[clock])
    >>> clock.epochs, clock.seconds > 0, TrainingClock(path).seconds == clock.seconds
    (2, True, True)
    """

    def __init__(self, path, resume=True):
        super().__init__()
        self.path = os.fspath(path)
        state = read_json(self.path) if resume and os.path.isfile(self.path) else {}
        self.seconds = float(state.get("seconds", 0.0))
        self.epochs = int(state.get("epochs", 0))
        self._mark = None

    def on_train_begin(self, logs=None):
        self._mark = time.perf_counter()

    def on_epoch_end(self, epoch, logs=None):
        now = time.perf_counter()
        self.seconds += now - self._mark
        self.epochs += 1
        self._mark = now
        with atomic_open(self.path, "w") as f:
            json.dump({"seconds": self.seconds, "epochs": self.epochs}, f)
