"""CoSENTLoss: log(1 + Σ exp(s·(cos_j − cos_i))) over every pair of pairs with
score_i > score_j, and a few steps of it order the cosines like the scores."""

import numpy as np

from keras_sentemb import losses
from tests.losses.loss_cases import SCORES, U, V, cos, embedding_model, train


def test_it_penalises_every_misordered_pair_of_pairs():
    c = 20.0 * cos(U, V)
    terms = [np.exp(c[j] - c[i]) for i in range(4) for j in range(4) if SCORES[i] > SCORES[j]]
    expected = np.log1p(np.sum(terms))
    got = losses.CoSENTLoss()(SCORES, np.stack([U, V], 1))
    np.testing.assert_allclose(float(got), expected, rtol=1e-5)


def test_training_orders_cosines_like_the_scores():
    model = embedding_model(seed=2)
    ids = np.array([[0, 1], [2, 3], [4, 5]])
    scores = np.array([1.0, 3.0, 5.0], "float32")
    after = train(model, losses.CoSENTLoss(), ids, scores, learning_rate=0.05)
    cosines = [cos(after[i, 0], after[i, 1]) for i in range(3)]
    assert cosines[0] < cosines[1] < cosines[2]
