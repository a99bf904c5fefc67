"""unit_rows: every row scaled to length 1, zero rows left at zero, float32 out."""

import numpy as np

from keras_sentemb.utils.unit_vectors import unit_rows


def test_rows_have_unit_length_and_keep_their_direction():
    x = np.random.default_rng(0).normal(size=(5, 7))
    got = unit_rows(x)
    assert got.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(got, axis=1), 1.0, rtol=1e-6)
    np.testing.assert_allclose(got * np.linalg.norm(x, axis=1, keepdims=True), x, rtol=1e-5)


def test_zero_rows_stay_zero_and_higher_rank_inputs_normalise_the_last_axis():
    x = np.zeros((2, 3, 4))
    x[1, 2] = [0, 3, 0, 4]
    got = unit_rows(x)
    assert np.all(np.isfinite(got)) and got[0].sum() == 0
    np.testing.assert_allclose(got[1, 2], [0, 0.6, 0, 0.8], rtol=1e-6)
