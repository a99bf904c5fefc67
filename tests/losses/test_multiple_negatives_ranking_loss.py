"""MultipleNegativesRankingLoss: cross-entropy over scale·cos(anchor, every positive and
hard negative in the batch), the anchor's own positive being the right class."""

import numpy as np
import pytest

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


def test_candidates_known_relevant_to_a_rows_anchor_are_not_its_negatives():
    # y_true: anchor id, positive id, hard-negative id; query 5 is known relevant to documents 10 and 12
    ids = np.array([[5.0, 10.0, 20.0], [6.0, 11.0, 12.0], [5.0, 12.0, 21.0], [7.0, 13.0, 22.0]])
    relevant = [(5, 10), (5, 12), (6, 11), (5, 13), (7, 13)]
    logits = 20.0 * unit(U) @ unit(np.concatenate([V, N])).T
    # row 0 (query 5): row 2's positive (12), row 3's positive (13), row 1's hard negative (12) are relevant
    logits[0, [2, 3, 5]] = -np.inf
    logits[2, [0, 3, 5]] = -np.inf  # row 2 is query 5 too; its own positive stays
    expected = -np.mean(log_softmax(logits)[np.arange(4), np.arange(4)])
    loss = losses.MultipleNegativesRankingLoss(relevant_pairs=relevant)
    np.testing.assert_allclose(float(loss(ids, np.stack([U, V, N], 1))), expected, rtol=1e-5)
    # nothing known relevant across rows: the plain loss
    alone = losses.MultipleNegativesRankingLoss(relevant_pairs=[(5, 10), (6, 11), (7, 13)])
    distinct = np.array([[5.0, 10.0, 20.0], [6.0, 11.0, 23.0], [8.0, 14.0, 21.0], [7.0, 13.0, 22.0]])
    plain = losses.MultipleNegativesRankingLoss()(np.zeros(4), np.stack([U, V, N], 1))
    np.testing.assert_allclose(float(alone(distinct, np.stack([U, V, N], 1))), float(plain), rtol=1e-6)
    restored = losses.MultipleNegativesRankingLoss.from_config(loss.get_config())
    np.testing.assert_allclose(float(restored(ids, np.stack([U, V, N], 1))), expected, rtol=1e-5)


def test_relevant_pairs_refuse_ids_that_float32_labels_cannot_hold():
    with pytest.raises(ValueError, match="relevant_pairs ids must lie in"):
        losses.MultipleNegativesRankingLoss(relevant_pairs=[(0, 2**24)])
    with pytest.raises(ValueError, match="pass one of them"):
        losses.MultipleNegativesRankingLoss(same_anchor_groups=True, relevant_pairs=[(0, 1)])
    with pytest.raises(ValueError, match="holds no"):
        losses.MultipleNegativesRankingLoss(relevant_pairs=[])
