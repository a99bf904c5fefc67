"""SentEval-style classification probes: logistic regression on frozen sentence embeddings.

A probe measures how much of a label an embedding carries linearly: a multinomial
logistic regression p(y | x) = softmax(W·z(x) + b), z = standardised features, trained with
L2 penalty ‖W‖² / (2C) (scikit-learn's `LogisticRegression`, L-BFGS), and its accuracy on
held-out sentences. C is chosen from `C_VALUES` (SentEval's grid 2⁻², …, 2³) on a dev
split, or by an inner stratified k-fold on the training split when there is no dev.

Every split is drawn by a seeded `StratifiedKFold` and L-BFGS is deterministic, so a
probe gives the same number under the same seed.
"""

import dataclasses
import warnings

import numpy as np
from sklearn.exceptions import ConvergenceWarning
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import StratifiedKFold
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

C_VALUES = tuple(2.0**t for t in range(-2, 4))


@dataclasses.dataclass
class ProbeResult:
    """Accuracy × 100 of a probe (the mean over folds for a cross-validated one), the
    standard deviation over folds (0 for a train/test probe), the C chosen (per fold for
    cross-validation) and the number of test predictions."""

    accuracy: float
    accuracy_std: float
    c: list
    test_size: int
    folds: int = 1

    def as_dict(self):
        return dataclasses.asdict(self)


def _features(features, name):
    array = np.asarray(features, dtype=np.float64)
    if array.ndim != 2 or array.shape[0] == 0:
        raise ValueError(f"{name} must be a non-empty 2-D array [N, d], got shape {array.shape}")
    if not np.all(np.isfinite(array)):
        raise ValueError(f"{name} holds NaN or infinite values")
    return array


def _labels(labels, count, name):
    array = np.asarray(labels)
    if array.ndim != 1 or len(array) != count:
        raise ValueError(f"{name} must be 1-D with one label per row ({count}), got shape {array.shape}")
    return array


def _check_training_labels(labels, folds, where):
    classes, counts = np.unique(labels, return_counts=True)
    if len(classes) < 2:
        raise ValueError(f"{where}: a probe needs at least two classes, got only {classes.tolist()}")
    rare = classes[counts < folds]
    if len(rare):
        raise ValueError(
            f"{where}: class(es) {rare.tolist()} have fewer than {folds} examples; a stratified "
            f"{folds}-fold split needs at least {folds} of each class (use fewer folds)"
        )
    return classes


def _check_unseen(test_labels, train_classes, where):
    unseen = sorted(set(np.unique(test_labels).tolist()) - set(train_classes.tolist()))
    if unseen:
        raise ValueError(
            f"{where}: label(s) {unseen} occur in the evaluation split but never in the training "
            f"split {sorted(train_classes.tolist())}; a probe cannot predict a class it never saw"
        )


def _classifier(c, seed):

    return make_pipeline(StandardScaler(), LogisticRegression(C=c, max_iter=2000, random_state=seed))


def _fit(c, seed, x, y):

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        return _classifier(c, seed).fit(x, y)


def _accuracy(model, x, y):
    return float(np.mean(model.predict(x) == y) * 100.0)


def _select_c(x, y, c_values, seed, dev=None, inner_folds=5):
    """The C of `c_values` with the best dev accuracy (or inner k-fold mean accuracy);
    ties go to the smaller C (the stronger penalty)."""

    if len(c_values) == 1:
        return float(c_values[0])
    if dev is None:
        smallest = int(np.unique(y, return_counts=True)[1].min())
        inner_folds = min(inner_folds, smallest)
        if inner_folds < 2:
            raise ValueError(
                "a class has a single training example, too few to choose C by inner "
                "cross-validation; give a dev split or one C (c_values=(1.0,))"
            )
    scores = []
    for c in c_values:
        if dev is not None:
            scores.append(_accuracy(_fit(c, seed, x, y), *dev))
            continue
        splitter = StratifiedKFold(n_splits=inner_folds, shuffle=True, random_state=seed)
        scores.append(
            np.mean(
                [_accuracy(_fit(c, seed, x[train], y[train]), x[test], y[test]) for train, test in splitter.split(x, y)]
            )
        )
    return float(c_values[int(np.argmax(scores))])


def _check_c_values(c_values):
    c_values = tuple(float(c) for c in c_values)
    if not c_values or any(not np.isfinite(c) or c <= 0 for c in c_values):
        raise ValueError(f"c_values must be positive numbers, got {c_values}")
    return c_values


def train_test_probe(
    train_features,
    train_labels,
    test_features,
    test_labels,
    dev_features=None,
    dev_labels=None,
    c_values=C_VALUES,
    seed=0,
    inner_folds=5,
):
    """Accuracy of a probe trained on the train split and tested on the test split (SST-2,
    TREC in SentEval). C is chosen on the dev split when given, else by an inner
    stratified `inner_folds`-fold on train; the final probe is refit on all of train.

    Labels may be ints or strings. A test or dev label that never occurs in train is a
    `ValueError` naming it. The inner k-fold uses fewer folds when a class is smaller.

    Example:
    (Not run as a doctest: it needs a trained model or data from the surrounding text.)
        result = train_test_probe(train_x, train_y, test_x, test_y, seed=0)
        round(result.accuracy, 2)
        # -> 86.4
    """
    x = _features(train_features, "train_features")
    y = _labels(train_labels, len(x), "train_labels")
    test_x = _features(test_features, "test_features")
    test_y = _labels(test_labels, len(test_x), "test_labels")
    if test_x.shape[1] != x.shape[1]:
        raise ValueError(f"test features have {test_x.shape[1]} columns, train {x.shape[1]}")
    c_values = _check_c_values(c_values)
    dev = None
    if (dev_features is None) != (dev_labels is None):
        raise ValueError("give both dev_features and dev_labels, or neither")
    classes = _check_training_labels(y, 1, "train split")
    _check_unseen(test_y, classes, "test split")
    if dev_features is not None:
        dev_x = _features(dev_features, "dev_features")
        dev = (dev_x, _labels(dev_labels, len(dev_x), "dev_labels"))
        _check_unseen(dev[1], classes, "dev split")
    c = _select_c(x, y, c_values, seed, dev=dev, inner_folds=inner_folds)
    accuracy = _accuracy(_fit(c, seed, x, y), test_x, test_y)
    return ProbeResult(accuracy=accuracy, accuracy_std=0.0, c=[c], test_size=len(test_x))


def cross_validated_probe(features, labels, folds=10, c_values=C_VALUES, seed=0, inner_folds=5):
    """Mean accuracy over a stratified `folds`-fold cross-validation (SentEval's MR, CR,
    SUBJ, MPQA: one labelled file, no fixed split). In each outer fold C is chosen by an
    inner `inner_folds`-fold on the training part, then the probe is refit on it.

    (Not run as a doctest: it needs a trained model or data from the surrounding text.)
        result = cross_validated_probe(x, y, folds=10, seed=0)
        result.accuracy, result.accuracy_std
        # -> (81.3, 2.1)
    """

    x = _features(features, "features")
    y = _labels(labels, len(x), "labels")
    if not isinstance(folds, int) or folds < 2:
        raise ValueError(f"folds must be an int ≥ 2, got {folds!r}")
    c_values = _check_c_values(c_values)
    _check_training_labels(y, folds, "labelled file")
    splitter = StratifiedKFold(n_splits=folds, shuffle=True, random_state=seed)
    accuracies, chosen = [], []
    for train, test in splitter.split(x, y):
        c = _select_c(x[train], y[train], c_values, seed, inner_folds=inner_folds)
        chosen.append(c)
        accuracies.append(_accuracy(_fit(c, seed, x[train], y[train]), x[test], y[test]))
    return ProbeResult(
        accuracy=float(np.mean(accuracies)),
        accuracy_std=float(np.std(accuracies)),
        c=chosen,
        test_size=len(x),
        folds=folds,
    )
