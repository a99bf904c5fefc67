"""Accuracy and F1 of predicted pair classes (MRPC-style paraphrase detection)."""

import numpy as np


def accuracy_and_f1(predicted, gold, positive=1):
    """`(accuracy × 100, F1 × 100)` of class predictions against gold classes.

    F1 = 2·P·R / (P + R) of the `positive` class, P = TP / (TP + FP), R = TP / (TP + FN);
    F1 is 0 when there is no true positive (the convention of scikit-learn's
    `zero_division=0`).

    >>> accuracy_and_f1([1, 1, 0, 0], [1, 0, 0, 1])
    (50.0, 50.0)
    """
    predicted = np.asarray(predicted)
    gold = np.asarray(gold)
    if predicted.shape != gold.shape or predicted.ndim != 1:
        raise ValueError(f"predicted {predicted.shape} and gold {gold.shape} must be equal 1-D shapes")
    if predicted.size == 0:
        raise ValueError("accuracy_and_f1 needs at least one example")
    accuracy = float(np.mean(predicted == gold) * 100.0)
    true_positive = np.sum((predicted == positive) & (gold == positive))
    false_positive = np.sum((predicted == positive) & (gold != positive))
    false_negative = np.sum((predicted != positive) & (gold == positive))
    if true_positive == 0:
        return accuracy, 0.0
    precision = true_positive / (true_positive + false_positive)
    recall = true_positive / (true_positive + false_negative)
    return accuracy, float(2 * precision * recall / (precision + recall) * 100.0)


def best_threshold(scores, labels, positive=1):
    """The similarity threshold t that maximises accuracy of "score ≥ t ⇒ positive" on
    (dev) `scores` with gold `labels`; ties go to the smallest such t.

    Candidates are the observed scores (every distinct cut), so the result is exact.

    >>> best_threshold([0.1, 0.4, 0.35, 0.8], [0, 1, 0, 1])
    0.4
    """
    scores = np.asarray(scores, dtype=np.float64)
    gold = np.asarray(labels) == positive
    if scores.shape != gold.shape or scores.ndim != 1 or scores.size == 0:
        raise ValueError(f"scores {scores.shape} and labels {gold.shape} must be equal non-empty 1-D shapes")
    order = np.argsort(-scores, kind="stable")
    ranked_scores, ranked_gold = scores[order], gold[order]
    # predicting the top i as positive: correct = positives among them + negatives below
    positives_above = np.concatenate([[0], np.cumsum(ranked_gold)])
    negatives_below = (~gold).sum() - np.concatenate([[0], np.cumsum(~ranked_gold)])
    correct = positives_above + negatives_below
    # only cut between distinct scores (all of a tied group goes the same way)
    cuts = [0] + [i for i in range(1, len(scores) + 1) if i == len(scores) or ranked_scores[i] != ranked_scores[i - 1]]
    best = max(cuts, key=lambda i: (correct[i], i))
    return float(ranked_scores[best - 1]) if best else float(np.inf)


def threshold_accuracy_and_f1(dev_scores, dev_labels, test_scores, test_labels, positive=1):
    """Pair classification as in SentEval's MRPC and MTEB: pick the threshold on dev
    (`best_threshold`), apply it to test; returns (accuracy × 100, F1 × 100, threshold)."""
    threshold = best_threshold(dev_scores, dev_labels, positive)
    predicted = (np.asarray(test_scores, dtype=np.float64) >= threshold).astype(np.int64)
    gold = (np.asarray(test_labels) == positive).astype(np.int64)
    accuracy, f1 = accuracy_and_f1(predicted, gold, positive=1)
    return accuracy, f1, threshold


def triplet_accuracy(positive_similarity, negative_similarity):
    """Percentage of triplets whose anchor is strictly more similar to its positive than
    to its negative.

    >>> triplet_accuracy([0.9, 0.2, 0.5], [0.1, 0.3, 0.5])
    33.33333333333333
    """
    positive = np.asarray(positive_similarity, dtype=np.float64)
    negative = np.asarray(negative_similarity, dtype=np.float64)
    if positive.shape != negative.shape or positive.ndim != 1 or positive.size == 0:
        raise ValueError(f"similarities {positive.shape} and {negative.shape} must be equal non-empty 1-D shapes")
    return float(np.mean(positive > negative) * 100.0)
