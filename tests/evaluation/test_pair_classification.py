"""accuracy_and_f1 and correlations: hand-computed values and bad input."""

import numpy as np
import pytest
from scipy.stats import pearsonr, spearmanr

from keras_sentemb.evaluation.pair_classification import accuracy_and_f1
from keras_sentemb.evaluation.sts import correlations


def test_accuracy_and_f1_of_the_positive_class():
    predicted = [1, 1, 1, 0, 0, 0, 1, 0]
    gold = [1, 1, 0, 0, 1, 0, 1, 1]
    # TP 3, FP 1, FN 2: precision 3/4, recall 3/5, F1 = 2·0.75·0.6/1.35 = 0.6667
    accuracy, f1 = accuracy_and_f1(predicted, gold)
    assert accuracy == 62.5 and f1 == pytest.approx(66.6667, abs=1e-3)


def test_f1_is_zero_without_a_true_positive_and_shapes_must_match():
    assert accuracy_and_f1([0, 0], [1, 0]) == (50.0, 0.0)
    with pytest.raises(ValueError, match="equal 1-D shapes"):
        accuracy_and_f1([0, 1], [0])


def test_correlations_equal_scipy():
    rng = np.random.default_rng(0)
    predicted, gold = rng.normal(size=50), rng.normal(size=50)
    spearman, pearson = correlations(predicted, gold)
    assert spearman == pytest.approx(spearmanr(predicted, gold).statistic * 100)
    assert pearson == pytest.approx(pearsonr(predicted, gold).statistic * 100)
    with pytest.raises(ValueError, match="at least two"):
        correlations([1.0], [2.0])


def test_the_dev_threshold_maximises_accuracy_exactly():
    from keras_sentemb.evaluation.pair_classification import best_threshold

    rng = np.random.default_rng(1)
    scores = np.round(rng.uniform(size=40), 1)  # many ties
    labels = (scores + rng.normal(scale=0.3, size=40) > 0.5).astype(int)
    threshold = best_threshold(scores, labels)
    candidates = np.concatenate([np.unique(scores), [np.inf]])
    accuracy = {t: np.mean((scores >= t) == labels) for t in candidates}
    assert accuracy[threshold] == max(accuracy.values())
    assert threshold == min(t for t in candidates if accuracy[t] == max(accuracy.values()))
    assert best_threshold([0.9, 0.1], [0, 1]) == 0.1  # ties go to the smallest threshold
    assert best_threshold([0.5, 0.5], [1, 0]) == 0.5


def test_threshold_classification_applies_the_dev_threshold_to_test():
    from keras_sentemb.evaluation.pair_classification import threshold_accuracy_and_f1

    accuracy, f1, threshold = threshold_accuracy_and_f1([0.2, 0.6, 0.7], [0, 1, 1], [0.65, 0.1, 0.5], [1, 0, 1])
    assert threshold == 0.6 and accuracy == pytest.approx(200 / 3) and f1 == pytest.approx(200 / 3)


def test_triplet_accuracy_counts_strict_wins():
    from keras_sentemb.evaluation.pair_classification import triplet_accuracy

    assert triplet_accuracy([0.9, 0.2, 0.5], [0.1, 0.3, 0.5]) == pytest.approx(100 / 3)


def test_constant_predictions_give_nan_with_a_warning():
    with pytest.warns(RuntimeWarning, match="predicted scores are constant"):
        spearman, pearson = correlations([0.5, 0.5, 0.5], [1.0, 2.0, 3.0])
    assert np.isnan(spearman) and np.isnan(pearson)
