"""neighbour_recall: the mean share of each query's true neighbours that were found."""

import numpy as np
import pytest

from keras_sentemb.evaluation.neighbour_recall import neighbour_recall


def test_it_is_the_mean_over_queries_of_the_found_share():
    found = np.array([[1, 2, 3, 4], [9, 8, 7, 6]])
    true = np.array([[4, 1], [5, 0]])
    assert neighbour_recall(found, true) == pytest.approx((1.0 + 0.0) / 2)


def test_a_longer_candidate_list_can_only_raise_recall():
    true = np.array([[0, 1, 2]])
    assert neighbour_recall([[0, 5]], true) < neighbour_recall([[0, 5, 1, 2]], true) == 1.0


def test_mismatched_or_empty_inputs_are_refused():
    with pytest.raises(ValueError, match="same Q"):
        neighbour_recall(np.zeros((2, 3)), np.zeros((3, 3)))
    with pytest.raises(ValueError, match="no neighbours"):
        neighbour_recall(np.zeros((2, 3)), np.zeros((2, 0)))
