"""SimilarityDistributionLoss: the sparse target of Tai et al., KL and expected-score MSE vs NumPy."""

import keras
import numpy as np
import pytest

from keras_sentemb.losses import SimilarityDistributionLoss, similarity_distribution_loss
from keras_sentemb.losses.similarity_distribution_loss import sparse_target_distribution

SCORES = np.array([0.0, 3.6, 5.0, 2.0], "float32")


def test_sparse_target_puts_the_score_between_its_two_classes():
    target = np.asarray(sparse_target_distribution(SCORES))
    np.testing.assert_allclose(target.sum(1), 1.0, rtol=1e-6)
    np.testing.assert_allclose(target @ np.arange(6), SCORES, rtol=1e-6)
    np.testing.assert_allclose(target[1], [0, 0, 0, 0.4, 0.6, 0], atol=1e-6)
    np.testing.assert_allclose(np.asarray(sparse_target_distribution([0.5], (-1, 1))), [[0, 0.5, 0.5]])


def test_kl_and_mse_match_numpy():
    rng = np.random.default_rng(0)
    logits = rng.normal(size=(4, 6))
    p_hat = np.exp(logits) / np.exp(logits).sum(1, keepdims=True)
    target = np.asarray(sparse_target_distribution(SCORES))
    kl = np.sum(np.where(target > 0, target * (np.log(target + 1e-7) - np.log(p_hat + 1e-7)), 0), 1)
    np.testing.assert_allclose(np.asarray(similarity_distribution_loss(SCORES, p_hat, "kl")), kl, rtol=1e-4)
    mse = (p_hat @ np.arange(6) - SCORES) ** 2
    np.testing.assert_allclose(np.asarray(similarity_distribution_loss(SCORES, p_hat, "mse")), mse, rtol=1e-5)
    assert float(SimilarityDistributionLoss("kl")(SCORES, target)) < 1e-5


def test_config_round_trip_and_bad_arguments():
    loss = SimilarityDistributionLoss("mse", score_range=(1, 5))
    clone = keras.saving.deserialize_keras_object(keras.saving.serialize_keras_object(loss))
    assert clone.objective == "mse" and clone.score_range == (1.0, 5.0)
    with pytest.raises(ValueError, match="objective"):
        SimilarityDistributionLoss("hinge")
    with pytest.raises(ValueError, match="score_range"):
        SimilarityDistributionLoss("kl", score_range=(5, 5))
