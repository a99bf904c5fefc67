"""Teacher logits for a pair dataset, computed once and cached on disk."""

import numpy as np

from keras_sentemb.utils.array_cache import (
    cached_array,
    fingerprint,
    fingerprint_texts,
    fingerprint_weights,
)


def teacher_logits_key(teacher, sentences1, sentences2, weights=None):
    """The cache key: sha256 over both sentence lists (order matters) and every teacher weight
    (`weights`: the teacher's `fingerprint_weights`, when the caller has it already)."""
    return fingerprint(
        "teacher-logits-v1",
        type(teacher).__name__,
        fingerprint_texts(sentences1),
        fingerprint_texts(sentences2),
        weights or fingerprint_weights(teacher),
    )


def cached_teacher_logits(teacher, sentences1, sentences2, cache_dir, batch_size=64, progress=None):
    """T = `teacher.predict_pairs(sentences1, sentences2)` as float32 [N, num_labels], cached.

    The entry in `cache_dir` is keyed by a sha256 of the two sentence lists and of the
    teacher's weights (`teacher_logits_key`), and verified by the sha256 of its bytes
    (`keras_sentemb.utils.array_cache`): distillation epochs and reruns reuse it, while
    another dataset, another teacher (or the same one trained further) or a corrupted
    file computes the logits again. Mismatched lists are refused by `predict_pairs`
    (a ValueError naming both lengths) before anything is cached.

    Example (not run as a doctest: it needs a trained cross-encoder)::

        T = cached_teacher_logits(cross_encoder, train.sentences1, train.sentences2, "out/cache")
    """
    key = teacher_logits_key(teacher, sentences1, sentences2)

    def compute():
        logits = teacher.predict_pairs(sentences1, sentences2, batch_size=batch_size, progress=progress)
        return np.asarray(logits, np.float32).reshape(len(sentences1), -1)

    return cached_array(cache_dir, "teacher_logits", key, compute)
