"""CosineSimilarityLoss: mean squared error between cos(u, v) and the gold score rescaled
to the target range, and a few steps of it pull similar pairs together."""

import numpy as np

from keras_sentemb import losses
from tests.losses.loss_cases import SCORES, U, V, cos, embedding_model, train


def test_it_is_the_mse_to_the_rescaled_score():
    expected = np.mean((cos(U, V) - SCORES / 5.0) ** 2)
    got = losses.CosineSimilarityLoss()(SCORES, np.stack([U, V], 1))
    np.testing.assert_allclose(float(got), expected, rtol=1e-5)
    expected_pm1 = np.mean((cos(U, V) - (SCORES / 5.0 * 2 - 1)) ** 2)
    got_pm1 = losses.CosineSimilarityLoss(target_range=(-1.0, 1.0))(SCORES, np.stack([U, V], 1))
    np.testing.assert_allclose(float(got_pm1), expected_pm1, rtol=1e-5)


def test_training_pulls_similar_pairs_together_and_pushes_others_apart():
    model = embedding_model()
    ids = np.array([[0, 1], [2, 3], [4, 5]])
    scores = np.array([5.0, 0.0, 5.0], "float32")
    before = np.asarray(model(ids))
    after = train(model, losses.CosineSimilarityLoss(), ids, scores)
    assert cos(after[0, 0], after[0, 1]) > cos(before[0, 0], before[0, 1]) + 0.1
    assert abs(cos(after[1, 0], after[1, 1])) < abs(cos(before[1, 0], before[1, 1])) + 1e-6
