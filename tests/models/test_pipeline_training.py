"""PipelineTraining: every trainable model of the package stops at a non-finite loss
(a NaNGuard is added to `fit`), does not ask Keras to shuffle, and saves uncompiled."""

import keras
import numpy as np

from keras_sentemb.models.pipeline_training import PipelineTraining, first_replica_batch, multi_worker_logs
from keras_sentemb.utils.nan_guard import NaNGuard


class TinyRegressor(PipelineTraining, keras.Model):
    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.dense = keras.layers.Dense(1)

    def call(self, x):
        return self.dense(x)


def test_fit_stops_at_the_first_non_finite_loss():
    keras.utils.set_random_seed(0)
    model = TinyRegressor()
    model.compile(keras.optimizers.SGD(0.1), "mse")
    x = np.ones((8, 2), "float32")
    y = np.array([1, 1, np.nan, 1, 1, 1, 1, 1], "float32")[:, None]
    history = model.fit(x, y, batch_size=2, epochs=5, verbose=0)
    assert len(history.history["loss"]) == 1  # stopped in the first epoch


def test_a_guard_of_the_caller_is_used_instead_of_a_second_one():
    keras.utils.set_random_seed(0)
    model = TinyRegressor()
    model.compile(keras.optimizers.SGD(0.1), "mse")
    guard = NaNGuard()
    x, y = np.ones((4, 2), "float32"), np.array([[1], [np.inf], [1], [1]], "float32")
    model.fit(x, y, batch_size=1, epochs=1, callbacks=[guard], verbose=0)
    assert guard.stopped_at == (0, 1)


def test_the_model_is_saved_without_its_compile_settings(tmp_path):
    model = TinyRegressor()
    model.compile(keras.optimizers.Adam(1e-3), "mse")
    model(np.ones((1, 2), "float32"))
    assert model.get_compile_config() is None


def test_outside_a_strategy_batches_and_logs_pass_unchanged():
    batch = {"x": np.ones(2), "y": [1, 2]}
    assert first_replica_batch(batch) == batch
    logs = {"loss": 1.0}
    assert multi_worker_logs(logs) is logs
