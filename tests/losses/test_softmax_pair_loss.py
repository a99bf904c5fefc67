"""SoftmaxPairLoss: cross-entropy on the classifier's logits, and it learns the labels."""

import keras
import numpy as np

from keras_sentemb import losses
from tests.losses.loss_cases import RNG, log_softmax, train


def test_it_is_cross_entropy_on_logits():
    logits = RNG.normal(size=(4, 3)).astype("float32")
    labels = np.array([0, 2, 1, 2])
    expected = -np.mean(log_softmax(logits)[np.arange(4), labels])
    np.testing.assert_allclose(float(losses.SoftmaxPairLoss()(labels, logits)), expected, rtol=1e-5)


def test_training_learns_the_labels():
    keras.utils.set_random_seed(5)
    ids = keras.Input((2,), dtype="int32")
    stacked = keras.layers.Embedding(6, 8)(ids)
    logits = keras.layers.Dense(3)(keras.layers.Flatten()(stacked))
    model = keras.Model(ids, logits)
    pairs, labels = np.array([[0, 1], [2, 3], [4, 5]]), np.array([0, 1, 2])
    train(model, losses.SoftmaxPairLoss(), pairs, labels, steps=80)
    assert np.asarray(model(pairs)).argmax(1).tolist() == [0, 1, 2]
