"""MultipleNegativesRankingLoss: cross-entropy over scale·cos(anchor, every positive and
hard negative in the batch), the anchor's own positive being the right class."""

import numpy as np

from keras_sentemb import losses
from tests.losses.loss_cases import N, U, V, embedding_model, log_softmax, train, unit


def test_it_uses_in_batch_and_hard_negatives():
    logits = 20.0 * unit(U) @ unit(V).T
    expected = -np.mean(log_softmax(logits)[np.arange(4), np.arange(4)])
    got = losses.MultipleNegativesRankingLoss()(np.zeros(4), np.stack([U, V], 1))
    np.testing.assert_allclose(float(got), expected, rtol=1e-5)
    logits_hard = 20.0 * unit(U) @ unit(np.concatenate([V, N])).T
    expected_hard = -np.mean(log_softmax(logits_hard)[np.arange(4), np.arange(4)])
    got_hard = losses.MultipleNegativesRankingLoss()(np.zeros(4), np.stack([U, V, N], 1))
    np.testing.assert_allclose(float(got_hard), expected_hard, rtol=1e-5)


def test_training_makes_each_anchor_rank_its_positive_first():
    model = embedding_model(items=8, seed=4)
    ids = np.array([[0, 1], [2, 3], [4, 5], [6, 7]])
    after = train(model, losses.MultipleNegativesRankingLoss(), ids, np.zeros(4, "float32"))
    similarity = unit(after[:, 0]) @ unit(after[:, 1]).T
    assert similarity.argmax(axis=1).tolist() == [0, 1, 2, 3]


def test_rows_of_one_group_do_not_count_each_others_positives_as_negatives():
    groups = np.array([0.0, 7.0, 0.0, 3.0])  # rows 0 and 2 share their anchor (one query, two documents)
    logits = 20.0 * unit(U) @ unit(np.concatenate([V, N])).T
    logits[0, 2] = logits[2, 0] = -np.inf  # the other row's positive, not its hard negative
    expected = -np.mean(log_softmax(logits)[np.arange(4), np.arange(4)])
    loss = losses.MultipleNegativesRankingLoss(same_anchor_groups=True)
    np.testing.assert_allclose(float(loss(groups, np.stack([U, V, N], 1))), expected, rtol=1e-5)
    # distinct groups: the plain loss
    plain = losses.MultipleNegativesRankingLoss()(np.zeros(4), np.stack([U, V, N], 1))
    np.testing.assert_allclose(float(loss(np.arange(4.0), np.stack([U, V, N], 1))), float(plain), rtol=1e-6)
    assert losses.MultipleNegativesRankingLoss.from_config(loss.get_config()).same_anchor_groups
