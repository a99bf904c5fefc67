"""Neighbour batches: mined neighbours are the exact cosine top-k (never the anchor
itself), and each batch is anchors, then neighbours from their pools, then random rows."""

import numpy as np
import pytest

from keras_sentemb.training.neighbour_batches import mine_neighbours, neighbour_batch_rows


def unit_vectors(rows, dim=12, seed=0):
    vectors = np.random.default_rng(seed).normal(size=(rows, dim)).astype("float32")
    return vectors / np.linalg.norm(vectors, axis=1, keepdims=True)


def test_mined_neighbours_are_the_exact_cosine_top_k_without_the_anchor():
    unit = unit_vectors(200)
    anchors, neighbours = mine_neighbours(unit, pool=7, max_anchors=50, seed=3)
    assert anchors.shape == (50,) and len(set(anchors)) == 50 and neighbours.shape == (50, 7)
    for anchor, found in zip(anchors, neighbours):
        scores = unit @ unit[anchor]
        scores[anchor] = -np.inf
        np.testing.assert_array_equal(found, np.argsort(-scores)[:7])


def test_a_duplicate_sentence_is_a_neighbour_but_the_anchor_itself_is_not():
    unit = unit_vectors(30)
    unit[17] = unit[4]  # the same sentence twice
    anchors, neighbours = mine_neighbours(unit, pool=3, max_anchors=30)
    assert neighbours[list(anchors).index(4), 0] == 17
    assert neighbours[list(anchors).index(17), 0] == 4
    assert not (neighbours == anchors[:, None]).any()


def test_the_pool_shrinks_to_the_other_rows_of_a_small_corpus():
    anchors, neighbours = mine_neighbours(unit_vectors(5), pool=20)
    assert neighbours.shape == (5, 4)
    for anchor, found in zip(anchors, neighbours):
        assert sorted(found) == sorted(set(range(5)) - {anchor})


def test_a_batch_is_anchors_then_their_neighbours_then_random_rows():
    unit = unit_vectors(300)
    anchors, neighbours = mine_neighbours(unit, pool=10, max_anchors=100)
    pool = dict(zip(anchors, neighbours))
    rows = neighbour_batch_rows(len(unit), anchors, neighbours, batch_size=50, steps=6, neighbours_per_anchor=3, seed=1)
    assert rows.shape == (6, 50) and rows.min() >= 0 and rows.max() < len(unit)
    for batch in rows:
        chosen = batch[:12]  # 50 // (1 + 3) anchors
        assert len(set(chosen)) == 12 and set(chosen) <= set(anchors)
        for i, anchor in enumerate(chosen):
            picked = batch[12 + 3 * i : 12 + 3 * (i + 1)]
            assert len(set(picked)) == 3 and set(picked) <= set(pool[anchor])
    np.testing.assert_array_equal(rows, neighbour_batch_rows(len(unit), anchors, neighbours, 50, 6, 3, seed=1))
    assert not np.array_equal(rows, neighbour_batch_rows(len(unit), anchors, neighbours, 50, 6, 3, seed=2))


def test_bad_settings_are_refused_with_the_values():
    unit = unit_vectors(20)
    anchors, neighbours = mine_neighbours(unit, pool=4)
    with pytest.raises(ValueError, match=r"neighbours_per_anchor must be in \[1, pool=4\], got 5"):
        neighbour_batch_rows(20, anchors, neighbours, batch_size=12, steps=1, neighbours_per_anchor=5)
    with pytest.raises(ValueError, match="batch_size 3 cannot hold an anchor and 3 neighbours"):
        neighbour_batch_rows(20, anchors, neighbours, batch_size=3, steps=1, neighbours_per_anchor=3)
    with pytest.raises(ValueError, match=r"need \[N ≥ 2, d\] vectors"):
        mine_neighbours(unit[:1])
    with pytest.raises(ValueError, match="pool and max_anchors must be ≥ 1, got 0"):
        mine_neighbours(unit, pool=0)
