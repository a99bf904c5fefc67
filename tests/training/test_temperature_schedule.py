"""TemperatureSchedule decays τ exponentially per optimizer step and resumes where it stopped."""

import math

import keras
import numpy as np
import pytest

from keras_sentemb.layers import SemanticHashing
from keras_sentemb.training import TemperatureSchedule


class RecordTemperature(keras.callbacks.Callback):
    def __init__(self, layer):
        super().__init__()
        self.layer, self.seen = layer, []

    def on_train_batch_end(self, batch, logs=None):
        self.seen.append(float(self.layer.temperature.numpy()))


def model_and_data():
    layer = SemanticHashing(64)
    model = keras.Sequential([keras.Input((4,)), layer])
    model.compile(optimizer="sgd", loss="mse")
    x = np.random.default_rng(0).standard_normal((8, 4)).astype(np.float32)
    return model, layer, x, np.full((8, 64), 0.5, np.float32)


def test_tau_follows_the_exponential_schedule_step_by_step():
    model, layer, x, y = model_and_data()
    record = RecordTemperature(layer)
    schedule = TemperatureSchedule(1.0, 0.01)
    history = model.fit(x, y, batch_size=2, epochs=2, verbose=0, callbacks=[schedule, record])
    steps = 8  # 4 batches × 2 epochs
    want = [math.exp(t / steps * math.log(0.01)) for t in range(steps)]
    np.testing.assert_allclose(record.seen, want, rtol=1e-6)
    assert history.history["temperature"][-1] == pytest.approx(want[-1], rel=1e-6)
    assert schedule.temperature(10 * steps) == pytest.approx(0.01)  # stays at the floor


def test_a_second_fit_continues_from_the_optimizer_step():
    model, layer, x, y = model_and_data()
    model.fit(x, y, batch_size=2, epochs=1, verbose=0, callbacks=[TemperatureSchedule(total_steps=8)])
    record = RecordTemperature(layer)
    model.fit(x, y, batch_size=2, epochs=1, verbose=0, callbacks=[TemperatureSchedule(total_steps=8), record])
    assert record.seen[0] == pytest.approx(math.exp(4 / 8 * math.log(0.05)), rel=1e-6)


def test_needs_a_hashing_layer_and_a_decreasing_range():
    with pytest.raises(ValueError, match="initial_temperature > final_temperature"):
        TemperatureSchedule(0.1, 0.5)
    model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(2)])
    model.compile(optimizer="sgd", loss="mse")
    with pytest.raises(ValueError, match="no SemanticHashing layer"):
        model.fit(np.zeros((2, 4)), np.zeros((2, 2)), verbose=0, callbacks=[TemperatureSchedule()])
