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
