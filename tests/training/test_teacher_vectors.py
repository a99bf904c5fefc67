"""The teacher-vector cache: computed once, reused, recomputed for other pooling or weights."""

import numpy as np

from keras_sentemb.models import SentenceEncoder
from keras_sentemb.training import cached_teacher_vectors
from tests.conftest import make_tiny_encoder

SENTENCES = ["the cat sat", "a dog ran", "hello world"]


class CountingEncoder:
    """Counts `encode` calls of a wrapped encoder, exposing what the cache key reads."""

    def __init__(self, encoder):
        self.encoder, self.calls = encoder, 0
        self.weights, self.pooling = encoder.weights, encoder.pooling

    def encode(self, *args, **kwargs):
        self.calls += 1
        return self.encoder.encode(*args, **kwargs)


def test_vectors_are_the_unit_teacher_embeddings_computed_once(tmp_path):
    teacher = CountingEncoder(make_tiny_encoder())
    first = cached_teacher_vectors(teacher, SENTENCES, tmp_path)
    again = cached_teacher_vectors(teacher, SENTENCES, tmp_path)
    assert teacher.calls == 1
    np.testing.assert_array_equal(first, again)
    np.testing.assert_allclose(first, teacher.encoder.encode(SENTENCES), rtol=1e-6)


def test_cls_and_mean_teachers_with_the_same_weights_do_not_share_an_entry(tmp_path):
    mean = make_tiny_encoder()
    cls = SentenceEncoder(mean.backbone, mean.tokenizer, pooling="cls")
    from_mean = cached_teacher_vectors(mean, SENTENCES, tmp_path)
    from_cls = cached_teacher_vectors(cls, SENTENCES, tmp_path)
    assert not np.allclose(from_mean, from_cls)
    np.testing.assert_allclose(from_cls, cls.encode(SENTENCES), rtol=1e-6)


def test_other_sentences_or_changed_weights_recompute(tmp_path):
    teacher = CountingEncoder(make_tiny_encoder())
    cached_teacher_vectors(teacher, SENTENCES, tmp_path)
    cached_teacher_vectors(teacher, SENTENCES[::-1], tmp_path)
    assert teacher.calls == 2
    weight = teacher.encoder.backbone.weights[0]
    weight.assign(weight + 0.5)
    cached_teacher_vectors(teacher, SENTENCES, tmp_path)
    assert teacher.calls == 3
