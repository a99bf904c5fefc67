"""pair_scorer_metrics: STS correlations or class accuracy/F1 of any `predict_pairs` model."""

import numpy as np
import pytest

from keras_sentemb.data.examples import LabeledPairs, ScoredPairs
from keras_sentemb.evaluation.pair_scorer_metrics import pair_scorer_metrics


class FixedScorer:
    def __init__(self, outputs):
        self.outputs = np.asarray(outputs)

    def predict_pairs(self, first, second, batch_size=64, progress=None):
        assert len(first) == len(second) == len(self.outputs)
        return self.outputs


def test_scored_pairs_get_spearman_and_pearson():
    pairs = ScoredPairs(["a", "b", "c"], ["d", "e", "f"], [1.0, 3.0, 2.0])
    metrics = pair_scorer_metrics(FixedScorer([0.1, 0.4, 0.3]), pairs)
    assert metrics["spearman"] == pytest.approx(100.0)
    assert metrics["pearson"] == pytest.approx(98.198, abs=1e-3)


def test_labeled_pairs_get_accuracy_and_f1_of_the_argmax_class():
    pairs = LabeledPairs(["a", "b", "c", "d"], ["e", "f", "g", "h"], [1, 0, 1, 1])
    logits = [[0.0, 2.0], [1.0, 0.0], [3.0, 1.0], [0.0, 1.0]]  # predicts 1, 0, 0, 1
    assert pair_scorer_metrics(FixedScorer(logits), pairs) == pytest.approx({"accuracy": 75.0, "f1": 80.0})


def test_other_examples_are_refused():
    with pytest.raises(TypeError, match="ScoredPairs or LabeledPairs"):
        pair_scorer_metrics(FixedScorer([]), object())
