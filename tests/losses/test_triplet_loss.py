"""TripletLoss: max(d(a, p) − d(a, n) + margin, 0) with Euclidean or cosine distance; it
refuses a batch without negatives and an unknown distance."""

import numpy as np
import pytest

from keras_sentemb import losses
from tests.losses.loss_cases import N, U, V, cos, embedding_model, train


def test_it_follows_the_formula_with_euclidean_and_cosine_distance():
    d_ap, d_an = np.linalg.norm(U - V, axis=1), np.linalg.norm(U - N, axis=1)
    expected = np.mean(np.maximum(d_ap - d_an + 1.0, 0.0))
    triplets = np.stack([U, V, N], 1)
    np.testing.assert_allclose(float(losses.TripletLoss()(np.zeros(4), triplets)), expected, rtol=1e-5)
    expected_cos = np.mean(np.maximum((1 - cos(U, V)) - (1 - cos(U, N)) + 0.3, 0.0))
    got_cos = losses.TripletLoss(margin=0.3, distance="cosine")(np.zeros(4), triplets)
    np.testing.assert_allclose(float(got_cos), expected_cos, rtol=1e-5)


def test_it_rejects_pairs_and_unknown_distances():
    with pytest.raises(ValueError, match=r"expects stacked embeddings \[batch, 3, dim\]"):
        losses.TripletLoss()(np.zeros(4), np.stack([U, V], 1))
    with pytest.raises(ValueError, match="distance"):
        losses.TripletLoss(distance="manhattan")


def test_training_brings_the_positive_closer_than_the_negative_by_the_margin():
    model = embedding_model(seed=3)
    ids = np.array([[0, 1, 2], [3, 4, 5]])
    after = train(model, losses.TripletLoss(margin=1.0), ids, np.zeros(2, "float32"))
    for a, p, n in after:
        assert np.linalg.norm(a - n) - np.linalg.norm(a - p) >= 0.9
