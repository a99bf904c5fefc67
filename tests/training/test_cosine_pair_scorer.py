"""A bi-encoder labels pairs with the cosine of its embeddings, as a cross-encoder would."""

import numpy as np
import pytest

from keras_sentemb.training.cosine_pair_scorer import CosinePairScorer
from keras_sentemb.training.silver_pairs import label_silver_pairs
from tests.conftest import make_tiny_encoder

FIRST = ["the cat sat", "a dog ran", "the cat sat"]
SECOND = ["a dog ran", "a dog ran", "the bird sang"]


def test_scores_are_the_cosines_of_the_encoders_vectors_in_input_order():
    encoder = make_tiny_encoder()
    scores = CosinePairScorer(encoder).predict_pairs(FIRST, SECOND)
    u, v = encoder.encode(FIRST), encoder.encode(SECOND)
    expected = np.sum(u * v, axis=1) / np.linalg.norm(u, axis=1) / np.linalg.norm(v, axis=1)
    assert scores.dtype == np.float32 and scores.shape == (3,)
    np.testing.assert_allclose(scores, expected, atol=1e-5)
    assert scores[1] == pytest.approx(1.0, abs=1e-5)  # a sentence with itself


def test_it_labels_silver_pairs_cached_under_the_encoders_weights(tmp_path):
    scorer = CosinePairScorer(make_tiny_encoder(seed=0))
    labels = label_silver_pairs(scorer, FIRST, SECOND, str(tmp_path), progress=False)
    assert labels.logits.shape == (3, 1) and labels.computed == 3
    np.testing.assert_allclose(labels.logits[:, 0], scorer.predict_pairs(FIRST, SECOND), atol=1e-6)
    assert label_silver_pairs(scorer, FIRST, SECOND, str(tmp_path), progress=False).computed == 0
    other = CosinePairScorer(make_tiny_encoder(seed=1))
    assert label_silver_pairs(other, FIRST, SECOND, str(tmp_path), progress=False).computed == 3


def test_bad_input_is_refused():
    with pytest.raises(TypeError, match="encode"):
        CosinePairScorer(object())
    scorer = CosinePairScorer(make_tiny_encoder())
    with pytest.raises(ValueError, match="differ in length"):
        scorer.predict_pairs(["a"], ["a", "b"])
    assert scorer.predict_pairs([], []).shape == (0,)
