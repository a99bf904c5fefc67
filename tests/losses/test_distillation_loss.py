"""DistillationLoss: α·(teacher term) + (1 − α)·(gold term), for regression (squared
errors) and for classification (logit MSE plus cross-entropy)."""

import numpy as np
import pytest

from keras_sentemb.losses import DistillationLoss


def test_regression_mixes_teacher_and_label_terms_like_numpy():
    student = np.array([[0.2], [0.9], [0.4]], np.float32)
    targets = np.array([[0.0, 0.5], [1.0, 0.7], [0.5, 0.5]], np.float32)  # [label, teacher]
    for alpha in (0.0, 0.3, 1.0):
        expected = np.mean(
            alpha * (student[:, 0] - targets[:, 1]) ** 2 + (1 - alpha) * (student[:, 0] - targets[:, 0]) ** 2
        )
        assert np.isclose(float(DistillationLoss(alpha)(targets, student)), expected, atol=1e-6)


def test_classification_mixes_logit_mse_and_cross_entropy():
    logits = np.array([[2.0, 0.0], [0.0, 1.0]], np.float32)
    targets = np.array([[1, 1.5, 0.5], [1, 0.0, 2.0]], np.float32)  # [class, T_0, T_1]
    log_softmax = logits - np.log(np.exp(logits).sum(1, keepdims=True))
    expected = np.mean(0.5 * ((logits - targets[:, 1:]) ** 2).sum(1) + 0.5 * -log_softmax[:, 1])
    assert np.isclose(float(DistillationLoss(0.5, "classification")(targets, logits)), expected, atol=1e-5)


def test_alpha_outside_the_unit_interval_is_refused():
    with pytest.raises(ValueError, match="alpha must be in"):
        DistillationLoss(1.5)


def test_the_cosine_term_adds_beta_times_the_squared_error_of_the_last_column_to_y():
    student = np.array([[0.2, 0.1], [0.9, 0.8]], np.float32)  # [S, cos(u, v)]
    targets = np.array([[0.0, 0.5], [1.0, 0.7]], np.float32)  # [label, teacher]
    head = 0.5 * (student[:, 0] - targets[:, 1]) ** 2 + 0.5 * (student[:, 0] - targets[:, 0]) ** 2
    expected = np.mean(head + 2.0 * (student[:, 1] - targets[:, 0]) ** 2)
    assert np.isclose(float(DistillationLoss(0.5, cosine_weight=2.0)(targets, student)), expected, atol=1e-6)


def test_the_cosine_term_needs_a_score_and_a_non_negative_weight():
    with pytest.raises(ValueError, match="objective='regression'"):
        DistillationLoss(0.5, "classification", cosine_weight=1.0)
    with pytest.raises(ValueError, match="cosine_weight must be"):
        DistillationLoss(0.5, cosine_weight=-1.0)


def numpy_ranking(scores, targets, scale=20.0):
    """CoSENT's R(p, s) = log(1 + Σ_{s_i > s_j} exp(λ(p_j − p_i))), written out pair by pair."""
    terms = [
        np.exp(scale * (scores[j] - scores[i]))
        for i in range(len(scores))
        for j in range(len(scores))
        if targets[i] > targets[j]
    ]
    return np.log1p(np.sum(terms))


def test_the_ranking_term_adds_gamma_times_cosent_of_the_head_and_of_each_cosine():
    """γ·[R(S, α·T + (1 − α)·y) + R(cos, y)]: one number for the batch, on top of every pair's
    squared errors, so the loss (their mean) rises by exactly that number."""
    student = np.array([[0.2, 0.1], [0.9, 0.8], [0.5, 0.6]], np.float32)  # [S, cos(u, v)]
    targets = np.array([[0.0, 0.5], [1.0, 0.7], [0.4, 0.9]], np.float32)  # [label, teacher]
    alpha = 0.25
    plain = float(DistillationLoss(alpha, cosine_weight=2.0)(targets, student))
    head_target = alpha * targets[:, 1] + (1 - alpha) * targets[:, 0]
    ranking = numpy_ranking(student[:, 0], head_target) + numpy_ranking(student[:, 1], targets[:, 0])
    ranked = float(DistillationLoss(alpha, cosine_weight=2.0, ranking_weight=0.5)(targets, student))
    assert np.isclose(ranked, plain + 0.5 * ranking, rtol=1e-5)


def test_the_ranking_term_reads_only_the_order_of_the_targets():
    """Targets with the same order give the same ranking term; pairs in the targets' order cost
    almost nothing, in the reverse order a lot."""
    student = np.array([[0.1], [0.5], [0.9]], np.float32)
    teacher = np.array([0.0, 0.3, 1.0], np.float32)

    def ranking_only(t):
        targets = np.column_stack([np.zeros(3), t]).astype(np.float32)
        with_term = float(DistillationLoss(1.0, ranking_weight=1.0)(targets, student))
        return with_term - float(DistillationLoss(1.0)(targets, student))

    assert np.isclose(ranking_only(teacher), ranking_only(teacher**3), atol=1e-6)
    assert ranking_only(teacher) < 1e-3 < 10.0 < ranking_only(teacher[::-1].copy())


def test_the_ranking_term_needs_a_score_and_valid_settings():
    with pytest.raises(ValueError, match="objective='regression'"):
        DistillationLoss(0.5, "classification", ranking_weight=1.0)
    with pytest.raises(ValueError, match="ranking_weight must be"):
        DistillationLoss(0.5, ranking_weight=-1.0)
    with pytest.raises(ValueError, match="ranking_scale > 0"):
        DistillationLoss(0.5, ranking_weight=1.0, ranking_scale=0.0)
    config = DistillationLoss(0.5, ranking_weight=0.3, ranking_scale=10.0).get_config()
    assert (config["ranking_weight"], config["ranking_scale"]) == (0.3, 10.0)
