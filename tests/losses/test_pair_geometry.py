"""The tensor helpers the losses share: unstacking [batch, k, dim], unit rows and
row-wise cosine, against NumPy."""

import numpy as np
import pytest

from keras_sentemb.losses.pair_geometry import l2_normalize, pairwise_cosine, unstack_embeddings
from tests.losses.loss_cases import U, V, cos, unit


def test_unstack_embeddings_splits_the_middle_axis():
    parts = unstack_embeddings(np.stack([U, V], 1), 2, "AnyLoss")
    assert len(parts) == 2
    np.testing.assert_array_equal(np.asarray(parts[1]), V)


def test_unstack_embeddings_names_the_loss_and_the_shape_it_needs():
    with pytest.raises(ValueError, match=r"TripletLoss expects stacked embeddings \[batch, 3, dim\].*\(4, 5\)"):
        unstack_embeddings(U, 3, "TripletLoss")


def test_l2_normalize_gives_unit_rows_and_leaves_zero_rows_finite():
    x = np.concatenate([U, np.zeros((1, 5), "float32")])
    got = np.asarray(l2_normalize(x))
    np.testing.assert_allclose(got[:4], unit(U), rtol=1e-6)
    np.testing.assert_array_equal(got[4], np.zeros(5))


def test_pairwise_cosine_is_the_cosine_of_each_row_pair():
    np.testing.assert_allclose(np.asarray(pairwise_cosine(U, V)), cos(U, V), rtol=1e-5)
