"""averaged_weights: inside the block the model holds the optimizer's moving averages,
afterwards its raw weights again; without EMA it changes nothing."""

import keras
import numpy as np

from keras_sentemb.training.averaged_weights import averaged_weights, uses_ema


def fitted(use_ema):
    keras.utils.set_random_seed(0)
    model = keras.Sequential([keras.Input((3,)), keras.layers.Dense(2)])
    model.compile(keras.optimizers.SGD(0.1, use_ema=use_ema, ema_momentum=0.5), "mse")
    x, y = np.random.default_rng(0).normal(size=(8, 3)), np.ones((8, 2))
    # Keras copies the averages into the model when fit ends: train by steps instead.
    for _ in range(3):
        model.train_on_batch(x, y)
    return model


def test_inside_the_block_the_model_holds_the_averages_then_its_raw_weights():
    model = fitted(use_ema=True)
    assert uses_ema(model.optimizer)
    raw = [w.numpy() for w in model.trainable_weights]
    averages = [a.numpy() for a in model.optimizer._model_variables_moving_average]
    assert not np.allclose(raw[0], averages[0])
    with averaged_weights(model.optimizer):
        for weight, average in zip(model.trainable_weights, averages):
            np.testing.assert_array_equal(weight.numpy(), average)
    for weight, before in zip(model.trainable_weights, raw):
        np.testing.assert_array_equal(weight.numpy(), before)


def test_raw_weights_come_back_even_when_the_block_raises():
    model = fitted(use_ema=True)
    raw = model.trainable_weights[0].numpy()
    try:
        with averaged_weights(model.optimizer):
            raise RuntimeError("evaluation failed")
    except RuntimeError:
        pass
    np.testing.assert_array_equal(model.trainable_weights[0].numpy(), raw)


def test_without_ema_the_block_changes_nothing():
    model = fitted(use_ema=False)
    assert not uses_ema(model.optimizer)
    raw = model.trainable_weights[0].numpy()
    with averaged_weights(model.optimizer):
        np.testing.assert_array_equal(model.trainable_weights[0].numpy(), raw)
