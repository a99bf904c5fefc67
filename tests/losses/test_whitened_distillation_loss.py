"""WhitenedDistillationLoss: SRALoss plus squared error in the teacher's whitened space."""

import keras
import numpy as np
import pytest

from keras_sentemb import losses
from keras_sentemb.losses import WhitenedDistillationLoss, sra_loss, whitened_distillation_loss, whitening_matrix


def test_matches_numpy():
    rng = np.random.default_rng(0)
    teacher, student = rng.normal(size=(6, 4)), rng.normal(size=(6, 4))
    whitening = rng.normal(size=(4, 4))
    unit = lambda x: x / np.linalg.norm(x, axis=1, keepdims=True)  # noqa: E731
    cosine = np.sum(unit(teacher) * unit(student), axis=1)
    expected = 0.5 * (1 - cosine) + 0.3 * np.mean(((unit(student) - unit(teacher)) @ whitening) ** 2, axis=1)
    got = whitened_distillation_loss(teacher, student, whitening, mse_weight=0.3)
    np.testing.assert_allclose(np.asarray(got), expected, rtol=1e-5)


def test_weight_zero_is_the_sra_loss_and_lengths_never_matter():
    rng = np.random.default_rng(1)
    teacher, student = rng.normal(size=(3, 4)), rng.normal(size=(3, 4))
    loss = WhitenedDistillationLoss(whitening_matrix(rng.normal(size=(50, 4))), mse_weight=0.0)
    np.testing.assert_allclose(float(loss(teacher, student)), float(np.mean(sra_loss(teacher, student))), rtol=1e-6)
    weighted = WhitenedDistillationLoss(np.eye(4), mse_weight=1.0)
    np.testing.assert_allclose(float(weighted(teacher, 5 * student)), float(weighted(teacher, student)), rtol=1e-5)


def test_whitening_gives_unit_variance_along_every_principal_axis():
    rng = np.random.default_rng(2)
    vectors = rng.normal(size=(4000, 3)) * [10.0, 1.0, 0.1]
    whitened = (vectors - vectors.mean(axis=0)) @ whitening_matrix(vectors, floor=0.001)
    np.testing.assert_allclose(whitened.std(axis=0), 1.0, rtol=1e-3)
    # the floor caps how much a thin direction is blown up
    assert np.abs(whitening_matrix(vectors, floor=0.1)).max() == pytest.approx(1 / (0.1 * 10.0), rel=0.05)


def test_registered_by_name_round_trips_and_rejects_bad_arguments():
    loss = losses.get("whitened_distillation", whitening=np.eye(3), mse_weight=0.2)
    clone = keras.saving.deserialize_keras_object(keras.saving.serialize_keras_object(loss))
    assert clone.mse_weight == 0.2 and np.array_equal(clone.whitening, np.eye(3))
    with pytest.raises(ValueError, match="square"):
        WhitenedDistillationLoss(np.ones((3, 2)))
    with pytest.raises(ValueError, match="mse_weight"):
        WhitenedDistillationLoss(np.eye(3), mse_weight=-1)
    with pytest.raises(ValueError, match="floor"):
        whitening_matrix(np.ones((4, 2)), floor=0)


def test_the_whitening_matrix_is_square_with_fewer_vectors_than_features():
    vectors = np.random.default_rng(0).normal(size=(5, 12))
    whitening = whitening_matrix(vectors)
    assert whitening.shape == (12, 12) and np.isfinite(whitening).all()
    # the 4 directions the vectors span come out at unit variance (the floor lifts the empty ones)
    whitened = (vectors - vectors.mean(axis=0)) @ whitening
    np.testing.assert_allclose(np.sort(whitened.var(axis=0))[-4:], 1.0, rtol=1e-4)
