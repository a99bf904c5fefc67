"""STS evaluation: reading validated TSV rows and the Spearman measure."""

import os

import numpy as np
import pytest

from keras_sentemb.data.examples import read_scored_pairs
from keras_sentemb.evaluation import cosine_scores, sts_spearman
from tests.conftest import FIXTURES

TINY_STS = os.path.join(FIXTURES, "sts_tiny.tsv")


class AngleEncoder:
    """Embeds the sentence at position k of `order` as the unit vector at angle k·step."""

    def __init__(self, angles):
        self.angles = angles
        self.calls = 0

    def encode(self, texts, batch_size=64, normalize=True, progress=None):
        self.calls += 1
        theta = np.array([self.angles[t] for t in texts])
        return np.stack([np.cos(theta), np.sin(theta)], axis=1)


def test_reads_scores_and_sentences():
    pairs = read_scored_pairs(TINY_STS)
    assert pairs.scores[:2] == [5.0, 4.2]
    assert pairs.sentences2[0] == "A man plays the guitar."


def test_spearman_is_100_for_a_perfectly_ordered_encoder():
    pairs = read_scored_pairs(TINY_STS)
    angles = {}
    for s1, s2, score in zip(pairs.sentences1, pairs.sentences2, pairs.scores):
        angles[s1] = 0.0
        angles[s2] = (5.0 - score) * 0.3  # higher score, smaller angle
    assert sts_spearman(AngleEncoder(angles), pairs) == pytest.approx(100.0)


def test_spearman_is_minus_100_for_a_reversed_encoder():
    pairs = read_scored_pairs(TINY_STS)
    angles = {s: 0.0 for s in pairs.sentences1}
    angles.update({s2: score * 0.3 for s2, score in zip(pairs.sentences2, pairs.scores)})
    assert sts_spearman(AngleEncoder(angles), pairs) == pytest.approx(-100.0)


def test_each_distinct_sentence_is_encoded_once_in_one_call():
    encoder = AngleEncoder({"a": 0.0, "b": 1.0})
    np.testing.assert_allclose(cosine_scores(encoder, ["a", "a"], ["b", "a"]), [np.cos(1.0), 1.0])
    assert encoder.calls == 1


def test_real_minilm_ranks_the_tiny_set_well(minilm_encoder):
    assert sts_spearman(minilm_encoder, read_scored_pairs(TINY_STS)) > 80.0
