"""TrainingClock: fit seconds summed over a run that a kill split into processes."""

import json
import time

import keras
import numpy as np

from keras_sentemb.training import TrainingClock


class SlowEpochs(keras.callbacks.Callback):
    """Makes each epoch take a known extra time."""

    def on_epoch_end(self, epoch, logs=None):
        time.sleep(0.05)


def fit(clock, epochs):
    model = keras.Sequential([keras.Input((1,)), keras.layers.Dense(1)])
    model.compile("sgd", "mse")
    model.fit(np.ones((4, 1)), np.ones((4, 1)), epochs=epochs, verbose=0, callbacks=[SlowEpochs(), clock])


def test_a_resumed_run_adds_its_epochs_to_what_the_killed_one_wrote(tmp_path):
    path = tmp_path / "clock.json"
    first = TrainingClock(path)
    fit(first, epochs=2)
    second = TrainingClock(path)
    assert (second.epochs, second.seconds) == (2, first.seconds)
    fit(second, epochs=1)
    saved = json.loads(path.read_text())
    assert saved["epochs"] == 3 and saved["seconds"] >= first.seconds + 0.05
    assert first.seconds >= 0.1


def test_a_fresh_run_starts_from_zero_whatever_the_file_holds(tmp_path):
    path = tmp_path / "clock.json"
    path.write_text(json.dumps({"seconds": 1000.0, "epochs": 9}))
    clock = TrainingClock(path, resume=False)
    fit(clock, epochs=1)
    assert clock.epochs == 1 and 0.05 <= clock.seconds < 1000
