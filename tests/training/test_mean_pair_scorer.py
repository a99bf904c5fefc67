"""An ensemble teacher scores a pair with the mean of its members' scores, and its cached labels
belong to all of its members' weights."""

import numpy as np
import pytest

from keras_sentemb.training.cosine_pair_scorer import CosinePairScorer
from keras_sentemb.training.mean_pair_scorer import MeanPairScorer
from keras_sentemb.training.silver_pairs import label_silver_pairs
from keras_sentemb.training.teacher_logits import cached_teacher_logits
from tests.conftest import make_tiny_encoder

FIRST = ["the cat sat", "a dog ran", "the cat sat"]
SECOND = ["a dog ran", "a dog ran", "the bird sang"]


def members(*seeds):
    return [CosinePairScorer(make_tiny_encoder(seed=seed)) for seed in seeds]


def test_the_score_is_the_mean_of_the_members_scores_in_input_order():
    first, second = members(0, 1)
    scores = MeanPairScorer([first, second]).predict_pairs(FIRST, SECOND)
    expected = (first.predict_pairs(FIRST, SECOND) + second.predict_pairs(FIRST, SECOND)) / 2
    assert scores.dtype == np.float32 and scores.shape == (3,)
    np.testing.assert_allclose(scores, expected, atol=1e-6)


def test_cached_labels_are_keyed_by_every_members_weights(tmp_path):
    ensemble = MeanPairScorer(members(0, 1))
    logits = cached_teacher_logits(ensemble, FIRST, SECOND, str(tmp_path))
    np.testing.assert_allclose(logits[:, 0], ensemble.predict_pairs(FIRST, SECOND), atol=1e-6)
    assert label_silver_pairs(ensemble, FIRST, SECOND, str(tmp_path), progress=False).computed == 3
    assert label_silver_pairs(ensemble, FIRST, SECOND, str(tmp_path), progress=False).computed == 0
    one_member_changed = MeanPairScorer(members(0, 2))
    assert label_silver_pairs(one_member_changed, FIRST, SECOND, str(tmp_path), progress=False).computed == 3


def test_bad_members_and_bad_input_are_refused():
    with pytest.raises(ValueError, match="two or more"):
        MeanPairScorer(members(0))
    with pytest.raises(TypeError, match="predict_pairs"):
        MeanPairScorer([*members(0), object()])
    three_classes = CosinePairScorer(make_tiny_encoder())
    three_classes.num_labels = 3
    with pytest.raises(ValueError, match="the mean needs 1"):
        MeanPairScorer([*members(0), three_classes])
    with pytest.raises(ValueError, match="differ in length"):
        MeanPairScorer(members(0, 1)).predict_pairs(["a"], ["a", "b"])


def test_member_scores_are_each_members_own_and_their_mean_is_the_score():
    ensemble = MeanPairScorer(members(0, 1))
    each = ensemble.member_scores(FIRST, SECOND)
    assert each.shape == (2, 3) and each.dtype == np.float32
    for row, member in zip(each, ensemble.scorers):
        np.testing.assert_allclose(row, member.predict_pairs(FIRST, SECOND), atol=1e-6)
    np.testing.assert_array_equal(each.mean(axis=0), ensemble.predict_pairs(FIRST, SECOND))
