"""A teacher's sentence vectors for unlabeled sentences, computed once and cached on disk."""

from keras_sentemb.utils.array_cache import (
    cached_array,
    fingerprint,
    fingerprint_texts,
    fingerprint_weights,
)


def teacher_vectors_key(teacher, sentences):
    """The cache key: sha256 over the sentences (order matters), the teacher's pooling
    settings (a CLS teacher and a mean teacher share weights) and every teacher weight."""
    settings = [
        getattr(teacher, name, None) for name in ("pooling", "layer_indices", "exclude_special_tokens", "normalize")
    ]
    return fingerprint(
        "teacher-vectors-v1",
        type(teacher).__name__,
        settings,
        fingerprint_texts(sentences),
        fingerprint_weights(teacher),
    )


def cached_teacher_vectors(teacher, sentences, cache_dir, batch_size=64, progress=None):
    """T_x = `teacher.encode(sentences)` (unit vectors, float32 [N, d]), cached.

    The teacher is a `SentenceEncoder`; its pooling picks the vector BiLSTM-SRA learns:
    `SentenceEncoder.from_pretrained("minilm-l6")` is MiniLM's mean-pooled sentence
    embedding, `SentenceEncoder(backbone, tokenizer, pooling="cls")` its [CLS] state. The
    entry is keyed by `teacher_vectors_key` and verified by the sha256 of its bytes
    (`keras_sentemb.utils.array_cache`): reruns reuse it; other sentences, another
    pooling, other weights or a corrupted file compute it again.

    Example (not run as a doctest: it loads pretrained weights)::

        T = cached_teacher_vectors(SentenceEncoder.from_pretrained("minilm-l6"), sentences, "out/cache")
    """
    key = teacher_vectors_key(teacher, sentences)
    return cached_array(
        cache_dir,
        "teacher_vectors",
        key,
        lambda: teacher.encode(list(sentences), batch_size=batch_size, progress=progress),
    )
