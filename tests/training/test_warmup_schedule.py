"""The learning-rate schedule: linear warm-up over 10 %, then linear decay to zero."""

import keras
import numpy as np
import pytest

from keras_sentemb.training import LinearWarmupLinearDecay


def test_rises_linearly_then_falls_linearly_to_zero():
    schedule = LinearWarmupLinearDecay(1.0, total_steps=200, warmup_fraction=0.1)
    rates = [float(schedule(step)) for step in (0, 10, 20, 110, 200, 250)]
    np.testing.assert_allclose(rates, [0.0, 0.5, 1.0, 0.5, 0.0, 0.0], atol=1e-6)


def test_serializes_and_drives_an_optimizer():
    schedule = LinearWarmupLinearDecay(3e-5, total_steps=50, warmup_fraction=0.2)
    clone = keras.saving.deserialize_keras_object(keras.saving.serialize_keras_object(schedule))
    assert clone.get_config() == schedule.get_config()
    optimizer = keras.optimizers.AdamW(schedule)
    assert float(optimizer.learning_rate) == 0.0


@pytest.mark.parametrize("kwargs", [{"total_steps": 0}, {"warmup_fraction": 1.0}])
def test_rejects_bad_arguments(kwargs):
    with pytest.raises(ValueError):
        LinearWarmupLinearDecay(1e-3, **{"total_steps": 10, **kwargs})
