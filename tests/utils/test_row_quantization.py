"""Per-row quantisation keeps every value within half a step of the row's scale, at 8, 6 and 4 bits,
stores 4-bit values two to a byte and 6-bit values four to three bytes, and refuses what it cannot
encode or decode."""

import numpy as np
import pytest

from keras_sentemb.utils.row_quantization import dequantize_rows, quantize_rows


@pytest.mark.parametrize("encoding, levels", [("int8-rows", 127), ("int6-rows", 31), ("int4-rows", 7)])
@pytest.mark.parametrize("columns", [6, 7])
def test_every_value_comes_back_within_half_a_step_of_its_row(encoding, levels, columns):
    matrix = np.random.default_rng(0).normal(size=(50, columns)).astype(np.float32)
    matrix[3] = 0.0  # an all-zero row has scale 0 and comes back as zeros
    values, scales = quantize_rows(matrix, encoding)
    restored = dequantize_rows(values, scales, encoding, columns=columns)
    step = np.abs(matrix).max(axis=1, keepdims=True) / levels
    assert restored.shape == matrix.shape and (restored[3] == 0).all()
    assert (np.abs(restored - matrix) <= step / 2 + 1e-6).all()
    assert np.allclose(np.abs(restored).max(axis=1), np.abs(matrix).max(axis=1))  # the extreme is exact


def test_int4_packs_two_values_a_byte():
    values, scales = quantize_rows(np.ones((3, 128)), "int4-rows")
    assert values.dtype == np.uint8 and values.shape == (3, 64) and scales.dtype == np.float32


def test_int6_packs_four_values_in_three_bytes():
    values, scales = quantize_rows(np.ones((3, 128)), "int6-rows")
    assert values.dtype == np.uint8 and values.shape == (3, 96) and scales.dtype == np.float32


@pytest.mark.parametrize("encoding", ["int8-rows", "int6-rows", "int4-rows"])
def test_values_that_do_not_hold_the_recorded_columns_are_refused(encoding):
    values, scales = quantize_rows(np.ones((3, 16)), encoding)
    with pytest.raises(ValueError, match="do not hold 17 columns"):
        dequantize_rows(values, scales, encoding, columns=17)


@pytest.mark.parametrize("encoding, matrix", [("int2-rows", np.ones((2, 2))), ("int8-rows", np.ones(3))])
def test_an_unknown_encoding_or_a_non_matrix_is_refused(encoding, matrix):
    with pytest.raises(ValueError, match="encoding must be one of|takes a matrix"):
        quantize_rows(matrix, encoding)
