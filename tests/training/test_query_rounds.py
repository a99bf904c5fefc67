"""query_rounds: each round holds one relevant document of every query, and a query's documents
come round by round without repeating until they run out."""

import numpy as np
import pytest

from keras_sentemb.training import query_rounds

POSITIVES = [(0, 10), (0, 11), (0, 12), (1, 20), (2, 30), (2, 31)]


def test_every_round_holds_each_query_once():
    pairs = query_rounds(POSITIVES, rounds=3, seed=1)
    assert pairs.shape == (9, 2)
    for r in range(3):
        assert pairs[3 * r : 3 * (r + 1), 0].tolist() == [0, 1, 2]
    assert all((int(q), int(d)) in POSITIVES for q, d in pairs)


def test_a_querys_documents_do_not_repeat_until_they_run_out():
    pairs = query_rounds(POSITIVES, rounds=4, seed=2)
    first = pairs[pairs[:, 0] == 0, 1].tolist()
    assert sorted(first[:3]) == [10, 11, 12] and first[3] == first[0]
    assert pairs[pairs[:, 0] == 1, 1].tolist() == [20] * 4
    two = pairs[pairs[:, 0] == 2, 1].tolist()
    assert sorted(two[:2]) == [30, 31] and two[2:] == two[:2]


def test_the_seed_decides_the_order():
    assert np.array_equal(query_rounds(POSITIVES, 2, seed=5), query_rounds(POSITIVES, 2, seed=5))
    orders = {tuple(query_rounds(POSITIVES, 1, seed=s)[:, 1]) for s in range(10)}
    assert len(orders) > 1


def test_bad_arguments_are_refused():
    with pytest.raises(ValueError, match="rounds must be at least 1"):
        query_rounds(POSITIVES, rounds=0)
    with pytest.raises(ValueError, match="at least one"):
        query_rounds([], rounds=1)
