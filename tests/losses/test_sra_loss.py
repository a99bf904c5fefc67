"""SRALoss: ½(1 − cos(T, S)) against NumPy, scale invariance, registry, config."""

import keras
import numpy as np

from keras_sentemb import losses
from keras_sentemb.losses import SRALoss, sra_loss


def test_matches_numpy():
    rng = np.random.default_rng(0)
    teacher, student = rng.normal(size=(6, 5)), rng.normal(size=(6, 5))
    cosine = np.sum(teacher * student, 1) / np.linalg.norm(teacher, axis=1) / np.linalg.norm(student, axis=1)
    np.testing.assert_allclose(np.asarray(sra_loss(teacher, student)), 0.5 * (1 - cosine), rtol=1e-5)
    np.testing.assert_allclose(float(SRALoss()(teacher, student)), np.mean(0.5 * (1 - cosine)), rtol=1e-5)


def test_is_zero_for_the_same_direction_and_one_for_the_opposite():
    teacher = np.array([[1.0, 2.0], [1.0, 2.0]])
    student = np.array([[3.0, 6.0], [-0.5, -1.0]])
    np.testing.assert_allclose(np.asarray(sra_loss(teacher, student)), [0.0, 1.0], atol=1e-6)


def test_a_zero_student_vector_costs_one_half_not_nan():
    np.testing.assert_allclose(np.asarray(sra_loss(np.ones((1, 3)), np.zeros((1, 3)))), [0.5])


def test_registered_by_name_and_round_trips():
    assert isinstance(losses.get("sra"), SRALoss)
    clone = keras.saving.deserialize_keras_object(keras.saving.serialize_keras_object(SRALoss()))
    assert isinstance(clone, SRALoss)
