"""Binary codes: packing round-trips, Hamming distances equal a naive count, the sign baseline."""

import numpy as np
import pytest

from keras_sentemb.retrieval import hamming_distances, hamming_similarity, pack_bits, sign_threshold_codes, unpack_bits


def naive_hamming(a_bits, b_bits):
    return np.array([[int(sum(x != y for x, y in zip(a, b))) for b in b_bits] for a in a_bits])


def test_pack_then_unpack_returns_the_bits_most_significant_first():
    bits = np.random.default_rng(0).integers(0, 2, (5, 64))
    codes = pack_bits(bits)
    assert codes.dtype == np.uint8 and codes.shape == (5, 8)
    np.testing.assert_array_equal(unpack_bits(codes), bits)
    assert pack_bits(np.array([[1, 0, 0, 0, 0, 0, 0, 1]]))[0, 0] == 129


@pytest.mark.parametrize("bits", [8, 24, 64, 256])
def test_hamming_distances_equal_a_naive_bit_count(bits):
    rng = np.random.default_rng(bits)
    a, b = rng.integers(0, 2, (4, bits)), rng.integers(0, 2, (6, bits))
    np.testing.assert_array_equal(hamming_distances(pack_bits(a), pack_bits(b)), naive_hamming(a, b))
    np.testing.assert_allclose(
        hamming_similarity(pack_bits(a), pack_bits(b)), 1 - 2 * naive_hamming(a, b) / bits, atol=1e-6
    )


def test_sign_threshold_at_the_embedding_width_is_quantize_embeddings_ubinary():
    x = np.random.default_rng(1).standard_normal((7, 32)).astype(np.float32)
    np.testing.assert_array_equal(sign_threshold_codes(x), np.packbits(x > 0, axis=1))


def test_sign_threshold_at_other_lengths_projects_with_a_seeded_random_matrix():
    x = np.random.default_rng(2).standard_normal((50, 32)).astype(np.float32)
    codes = sign_threshold_codes(x, bits=512, seed=3)
    assert codes.shape == (50, 64)
    np.testing.assert_array_equal(codes, sign_threshold_codes(x, bits=512, seed=3))
    # Random hyperplanes: the Hamming fraction estimates angle/π.
    angle = np.arccos(np.clip((x[0] @ x[1]) / np.linalg.norm(x[0]) / np.linalg.norm(x[1]), -1, 1))
    assert abs(hamming_distances(codes[:1], codes[1:2])[0, 0] / 512 - angle / np.pi) < 0.08


@pytest.mark.parametrize(
    "bad, error",
    [
        (np.zeros((2, 8), np.int32), TypeError),  # wrong dtype
        ([[0] * 8], TypeError),  # not an array
        (np.zeros((8,), np.uint8), ValueError),  # not 2-D
    ],
)
def test_unpack_rejects_codes_that_are_not_packed_uint8_matrices(bad, error):
    with pytest.raises(error):
        unpack_bits(bad)


def test_pack_rejects_lengths_that_are_not_whole_bytes_and_non_binary_values():
    with pytest.raises(ValueError, match="multiple of 8"):
        pack_bits(np.zeros((1, 12)))
    with pytest.raises(ValueError, match="only 0 and 1"):
        pack_bits(np.full((1, 8), 2))


def test_hamming_rejects_codes_of_different_widths():
    with pytest.raises(ValueError, match="expected 64-bit codes"):
        hamming_distances(np.zeros((1, 8), np.uint8), np.zeros((1, 4), np.uint8))
