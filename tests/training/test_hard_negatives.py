"""mine_hard_negatives: the model's own top-ranked documents that are not known positives, with
the false-negative filters of sentence-transformers' mine_hard_negatives."""

import numpy as np
import pytest

from keras_sentemb.training.hard_negatives import mine_hard_negatives


class TableEncoder:
    """Fixed unit vectors by text."""

    def __init__(self, table):
        self.table = {text: np.asarray(v, np.float32) / np.linalg.norm(v) for text, v in table.items()}

    def encode(self, texts, batch_size=64, normalize=True, progress=None):
        return np.stack([self.table[t] for t in texts])


QUERIES = ["q0", "q1"]
DOCUMENTS = ["d0", "d1", "d2", "d3", "d4"]
# cos(q0, ·): d0 1.0, d1 0.99 (near-duplicate of the positive), d2 0.8, d3 0.6, d4 0.0
ENCODER = TableEncoder(
    {
        "q0": [1, 0, 0],
        "q1": [0, 0, 1],
        "d0": [1, 0, 0],
        "d1": [0.99, np.sqrt(1 - 0.99**2), 0],
        "d2": [0.8, 0.6, 0],
        "d3": [0.6, 0.8, 0],
        "d4": [0, 0, 1],
    }
)


def test_negatives_are_the_best_ranked_non_positives_below_the_positive_aware_margin():
    mined = mine_hard_negatives(ENCODER, QUERIES, DOCUMENTS, [(0, 0), (1, 4)], relative_margin=0.05)
    # for q0: d1 scores 0.99 > 0.95 · 1.0 (likely an unjudged positive): skipped; d2 is the hardest left
    assert mined.triplets.anchors[0] == "q0" and mined.triplets.negatives[0] == "d2"
    assert mined.groups.tolist() == [0.0, 1.0]
    assert mined.ids.tolist() == [[0, 0, 2], [1, 4, 0]]  # (query, document, negative) indices
    assert mined.skipped == 0


def test_documents_known_relevant_are_never_negatives_when_the_pairs_are_a_sample():
    # the pair (0, 0) sampled from q0's relevant documents {d0, d2}: d2 is still no negative
    mined = mine_hard_negatives(
        ENCODER, QUERIES, DOCUMENTS, [(0, 0)], relative_margin=0.05, known_positives=[(0, 0), (0, 2)]
    )
    assert mined.triplets.negatives == ["d3"]


def test_known_positives_are_never_negatives_and_the_rank_window_is_respected():
    mined = mine_hard_negatives(
        ENCODER, QUERIES, DOCUMENTS, [(0, 0), (0, 2)], relative_margin=None, range_min=1, range_max=4, num_negatives=3
    )
    negatives = set(mined.triplets.negatives)
    # q0's non-positives by score: d1, d3, d4; ranks 1–3 of them skip d1 (positives are not counted)
    assert negatives == {"d3", "d4"}
    assert len(mined.triplets.anchors) == 4  # two pairs, two negatives each


def test_a_pair_without_a_qualifying_candidate_is_skipped_and_counted():
    mined = mine_hard_negatives(ENCODER, QUERIES, DOCUMENTS, [(0, 0)], margin=0.5, relative_margin=None)
    assert mined.triplets.negatives == ["d4"]  # only d4 (0.0) is below 1.0 − 0.5 … d3 is 0.6
    mined = mine_hard_negatives(ENCODER, QUERIES, DOCUMENTS, [(0, 0)], margin=2.0)
    assert mined.skipped == 1 and len(mined.triplets.anchors) == 0


def test_random_sampling_is_seeded_and_bad_arguments_refused():
    first = mine_hard_negatives(ENCODER, QUERIES, DOCUMENTS, [(0, 0)], sampling="random", num_negatives=1, seed=3)
    again = mine_hard_negatives(ENCODER, QUERIES, DOCUMENTS, [(0, 0)], sampling="random", num_negatives=1, seed=3)
    assert first.triplets.negatives == again.triplets.negatives
    with pytest.raises(ValueError, match="sampling must be"):
        mine_hard_negatives(ENCODER, QUERIES, DOCUMENTS, [(0, 0)], sampling="hardest")
    with pytest.raises(ValueError, match="out of range"):
        mine_hard_negatives(ENCODER, QUERIES, DOCUMENTS, [(0, 9)])


def test_relative_to_the_query_keeps_weak_positives_and_hands_out_candidates_in_turn():
    # d3 (0.6) is a weak positive of q0: the per-pair rule keeps only candidates below 0.57 (d4, the
    # easiest); against the query's best positive (d0, 1.0) d2 passes too, and the pairs take turns
    pairs = [(0, 0), (0, 3), (0, 3)]
    per_pair = mine_hard_negatives(ENCODER, QUERIES, DOCUMENTS, pairs, relative_margin=0.05)
    assert per_pair.triplets.negatives == ["d2", "d4", "d4"]
    per_query = mine_hard_negatives(ENCODER, QUERIES, DOCUMENTS, pairs, relative_margin=0.05, relative_to="query")
    assert per_query.skipped == 0 and per_query.triplets.negatives == ["d2", "d4", "d2"]
    with pytest.raises(ValueError, match="relative_to must be"):
        mine_hard_negatives(ENCODER, QUERIES, DOCUMENTS, pairs, relative_to="document")
