"""The teacher-logit cache: computed once, reused, invalidated by other data or weights."""

import numpy as np

from keras_sentemb.training.teacher_logits import cached_teacher_logits
from tests.conftest import make_tiny_cross_encoder

FIRST = ["the cat sat", "a dog ran", "hello"]
SECOND = ["a cat", "the dog", "hello world"]


class CountingTeacher:
    """A cross-encoder that counts its `predict_pairs` calls."""

    def __init__(self, model):
        self.model, self.calls = model, 0
        self.weights = model.weights

    def predict_pairs(self, *args, **kwargs):
        self.calls += 1
        return self.model.predict_pairs(*args, **kwargs)


def test_logits_are_computed_once_and_reused(tmp_path):
    teacher = CountingTeacher(make_tiny_cross_encoder(num_labels=2))
    first = cached_teacher_logits(teacher, FIRST, SECOND, tmp_path)
    again = cached_teacher_logits(teacher, FIRST, SECOND, tmp_path)
    assert teacher.calls == 1 and first.shape == (3, 2)
    np.testing.assert_array_equal(first, again)


def test_other_data_or_changed_teacher_weights_recompute(tmp_path):
    teacher = CountingTeacher(make_tiny_cross_encoder(num_labels=1))
    before = cached_teacher_logits(teacher, FIRST, SECOND, tmp_path)
    cached_teacher_logits(teacher, FIRST, SECOND[::-1], tmp_path)
    assert teacher.calls == 2
    bias = teacher.model.get_layer("logits").bias
    bias.assign(bias + 1.0)
    after = cached_teacher_logits(teacher, FIRST, SECOND, tmp_path)
    assert teacher.calls == 3
    np.testing.assert_allclose(after, before + 1.0, atol=1e-5)


def test_a_corrupted_cache_file_is_recomputed(tmp_path):
    teacher = CountingTeacher(make_tiny_cross_encoder(num_labels=1))
    cached_teacher_logits(teacher, FIRST, SECOND, tmp_path)
    (npy,) = tmp_path.glob("teacher_logits-*.npy")
    data = bytearray(npy.read_bytes())
    data[-1] ^= 0xFF
    npy.write_bytes(bytes(data))
    cached_teacher_logits(teacher, FIRST, SECOND, tmp_path)
    assert teacher.calls == 2
