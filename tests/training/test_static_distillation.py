"""Distilling a sentence encoder into a StaticEncoder: Model2Vec's start, then sentences."""

import numpy as np
import pytest

from keras_sentemb.training.static_distillation import (
    distill_static_encoder,
    principal_axes,
    sif_weights,
    static_encoder_from_token_vectors,
    teacher_token_vectors,
    token_counts,
)
from tests.conftest import TINY_VOCAB, make_tiny_encoder

SENTENCES = [
    "the cat sat on the mat .",
    "a dog ran fast",
    "the dog was playing on the mat",
    "hello world !",
    "rain and storm",
    "bread in the oven",
    "the cat is fast",
    "a dog sat",
] * 4


def test_token_vectors_are_the_teachers_vectors_of_each_token_alone():
    teacher = make_tiny_encoder(normalize=True)
    vectors = teacher_token_vectors(teacher, progress=False)
    assert vectors.shape == (len(TINY_VOCAB), teacher.embedding_dim)
    np.testing.assert_allclose(vectors[TINY_VOCAB.index("cat")], teacher.encode("cat"), rtol=1e-5, atol=1e-6)


def test_token_counts_count_word_pieces_of_the_sentences():
    counts = token_counts(make_tiny_encoder().tokenizer, ["the cat", "the the dog"])
    assert counts[TINY_VOCAB.index("the")] == 3 and counts[TINY_VOCAB.index("dog")] == 1
    assert counts.sum() == 5


def test_sif_weights_fall_with_frequency_and_reject_bad_input():
    weights = sif_weights(np.array([1000, 10, 0]))
    assert weights[0] < weights[1] < weights[2] == 1.0
    with pytest.raises(ValueError, match="non-negative"):
        sif_weights(np.array([1, -1]))
    with pytest.raises(ValueError, match="coefficient"):
        sif_weights(np.array([1, 2]), coefficient=0)


def test_the_start_projects_back_to_the_centred_token_vectors():
    rng = np.random.default_rng(0)
    vectors = rng.normal(size=(len(TINY_VOCAB), 8)).astype("float32")
    model = static_encoder_from_token_vectors(
        make_tiny_encoder().tokenizer, vectors, np.ones(len(TINY_VOCAB)), dim=8, token_weights=True
    )
    # With every principal axis kept, P · E is each token's centred vector, so one token's text gives it.
    mean, _ = principal_axes(vectors, 8)
    cat = model.encode("cat", normalize=False)
    np.testing.assert_allclose(cat, vectors[TINY_VOCAB.index("cat")] - mean, rtol=1e-4, atol=1e-4)
    with pytest.raises(ValueError, match="dim must be in"):
        principal_axes(vectors, 9)


def test_distillation_brings_the_student_closer_to_the_teacher():
    teacher = make_tiny_encoder(normalize=True)
    targets = teacher.encode(SENTENCES)

    def agreement(model):
        return float(np.mean(np.sum(model.encode(SENTENCES) * targets, axis=1)))

    start = static_encoder_from_token_vectors(
        teacher.tokenizer,
        teacher_token_vectors(teacher, progress=False),
        sif_weights(token_counts(teacher.tokenizer, SENTENCES), coefficient=1e-2),
        dim=8,
    )
    model, history = distill_static_encoder(
        teacher, SENTENCES, targets, dim=8, epochs=5, batch_size=8, learning_rate=1e-2, verbose=0
    )
    assert model.embedding_dim == teacher.embedding_dim
    assert len(history.history["loss"]) == 5
    assert agreement(model) > agreement(start) + 0.01


def test_the_sif_weights_stay_fixed_unless_asked_and_the_table_defaults_to_the_teachers_width():
    teacher = make_tiny_encoder(normalize=True)
    targets = teacher.encode(SENTENCES)
    sif = sif_weights(token_counts(teacher.tokenizer, SENTENCES), coefficient=1e-2)
    kept, _ = distill_static_encoder(teacher, SENTENCES, targets, epochs=2, batch_size=8, verbose=0)
    assert kept.token_table.embeddings.shape[1] == teacher.embedding_dim
    np.testing.assert_allclose(kept.weight_table.embeddings.numpy()[:, 0], sif, rtol=1e-6)
    learned, _ = distill_static_encoder(
        teacher, SENTENCES, targets, dim=8, epochs=2, batch_size=8, train_token_weights=True, verbose=0
    )
    assert np.abs(learned.weight_table.embeddings.numpy()[:, 0] - sif).max() > 1e-4
