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
