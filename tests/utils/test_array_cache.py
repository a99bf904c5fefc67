"""cached_array computes once per key, and recomputes for another key or a corrupted file."""

import os

import numpy as np
import pytest

from keras_sentemb.utils.array_cache import (
    cached_array,
    fingerprint,
    fingerprint_texts,
    fingerprint_weights,
    load_cached_array,
    save_cached_rows,
)
from tests.conftest import make_tiny_encoder


class Counter:
    def __init__(self, value):
        self.calls, self.value = 0, value

    def __call__(self):
        self.calls += 1
        return self.value


def test_a_second_call_with_the_same_key_loads_instead_of_computing(tmp_path):
    compute = Counter(np.arange(6, dtype=np.float32).reshape(2, 3))
    first = cached_array(tmp_path, "vectors", "k1" * 10, compute)
    second = cached_array(tmp_path, "vectors", "k1" * 10, compute)
    assert compute.calls == 1
    np.testing.assert_array_equal(first, second)


def test_another_key_recomputes(tmp_path):
    compute = Counter(np.ones(3))
    cached_array(tmp_path, "vectors", "a" * 20, compute)
    cached_array(tmp_path, "vectors", "b" * 20, compute)
    assert compute.calls == 2


def test_a_corrupted_entry_is_detected_and_recomputed(tmp_path):
    compute = Counter(np.arange(100, dtype=np.float32))
    cached_array(tmp_path, "vectors", "c" * 20, compute)
    path = tmp_path / f"vectors-{'c' * 16}.npy"
    data = bytearray(path.read_bytes())
    data[-1] ^= 0xFF
    path.write_bytes(bytes(data))
    assert load_cached_array(tmp_path, "vectors", "c" * 20) is None
    np.testing.assert_array_equal(
        cached_array(tmp_path, "vectors", "c" * 20, compute), np.arange(100, dtype=np.float32)
    )
    assert compute.calls == 2
    assert not [name for name in os.listdir(tmp_path) if name.startswith(".")]  # no temp files


def test_fingerprints_change_with_the_texts_and_the_weights():
    assert fingerprint_texts(["a", "bc"]) != fingerprint_texts(["ab", "c"])
    assert fingerprint("x", "y") != fingerprint("xy")
    one, other = make_tiny_encoder(seed=0), make_tiny_encoder(seed=1)
    assert fingerprint_weights(one) == fingerprint_weights(make_tiny_encoder(seed=0))
    assert fingerprint_weights(one) != fingerprint_weights(other)


@pytest.mark.parametrize("encoding, levels", [("int8-rows", 127), ("int6-rows", 31), ("int4-rows", 7)])
def test_a_row_quantised_entry_loads_as_the_matrix_it_encodes_and_a_corrupted_one_is_refused(
    tmp_path, encoding, levels
):
    matrix = np.random.default_rng(1).normal(size=(40, 9)).astype(np.float32)
    path = save_cached_rows(tmp_path, "table", "r" * 20, matrix, encoding)
    loaded = load_cached_array([tmp_path / "empty", tmp_path], "table", "r" * 20)
    assert loaded.dtype == np.float32 and loaded.shape == matrix.shape
    assert (np.abs(loaded - matrix) <= np.abs(matrix).max(axis=1, keepdims=True) / levels / 2 + 1e-6).all()
    assert load_cached_array(tmp_path, "table", "s" * 20) is None  # another key
    with open(path, "r+b") as f:
        f.seek(-8, os.SEEK_END)
        f.write(b"\0" * 8)
    assert load_cached_array(tmp_path, "table", "r" * 20) is None
