"""The engines' rows are checked against `hash` bit for bit, except bits whose logit lies within
round-off of the threshold: the check passes such a flip and fails any other."""

import numpy as np
import pytest

from tests.scale_out.corpus import ROUND_OFF_LOGIT, assert_codes_equal_but_at_the_threshold


def codes_and_logits():
    rng = np.random.default_rng(0)
    logits = rng.normal(size=(50, 64)).astype(np.float32)
    logits[7, 9] = ROUND_OFF_LOGIT / 7  # a bit at the threshold
    return np.packbits(logits > 0, axis=1), logits


def test_equal_codes_pass():
    codes, logits = codes_and_logits()
    assert_codes_equal_but_at_the_threshold(codes.copy(), codes, logits)


def test_a_flipped_bit_whose_logit_is_round_off_passes():
    codes, logits = codes_and_logits()
    flipped = codes.copy()
    flipped[7, 1] ^= np.uint8(1 << (7 - 1))  # bit 9 = byte 1, second most significant bit
    assert_codes_equal_but_at_the_threshold(flipped, codes, logits)


def test_a_flipped_bit_with_a_clear_logit_fails():
    codes, logits = codes_and_logits()
    row, bit = np.argwhere(np.abs(logits) > 0.5)[3]
    flipped = codes.copy()
    flipped[row, bit // 8] ^= np.uint8(1 << (7 - bit % 8))
    with pytest.raises(AssertionError, match="beyond round-off"):
        assert_codes_equal_but_at_the_threshold(flipped, codes, logits)


def test_codes_of_another_shape_fail():
    codes, logits = codes_and_logits()
    with pytest.raises(AssertionError):
        assert_codes_equal_but_at_the_threshold(codes[:, :4], codes, logits)
