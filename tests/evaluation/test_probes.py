"""Classification probes: they agree with scikit-learn's own cross-validation and grid
search, are deterministic under a seed, and reject labels they cannot learn."""

import numpy as np
import pytest
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import GridSearchCV, StratifiedKFold, cross_val_score
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

from keras_sentemb.evaluation.probes import C_VALUES, cross_validated_probe, train_test_probe


def blobs(n_per_class=30, classes=3, dim=8, seed=0, spread=2.5):
    """Gaussian clusters that overlap a little, so accuracy is high but not 100."""
    rng = np.random.default_rng(seed)
    centres = rng.normal(0.0, 1.0, (classes, dim))
    x = np.concatenate([c + rng.normal(0.0, spread / 2, (n_per_class, dim)) for c in centres])
    y = np.repeat(np.arange(classes), n_per_class)
    order = rng.permutation(len(y))
    return x[order], y[order]


def reference_pipeline(c):
    return make_pipeline(StandardScaler(), LogisticRegression(C=c, max_iter=2000, random_state=0))


def test_cross_validated_probe_equals_sklearn_cross_val_score_at_one_c():
    x, y = blobs()
    ours = cross_validated_probe(x, y, folds=5, c_values=(0.5,), seed=3)
    reference = cross_val_score(reference_pipeline(0.5), x, y, cv=StratifiedKFold(5, shuffle=True, random_state=3))
    assert ours.accuracy == pytest.approx(reference.mean() * 100.0)
    assert ours.accuracy_std == pytest.approx(reference.std() * 100.0)
    assert ours.c == [0.5] * 5 and ours.folds == 5 and ours.test_size == len(y)


def test_train_test_probe_chooses_c_like_sklearn_grid_search():
    x, y = blobs(seed=1)
    test_x, test_y = blobs(seed=1, n_per_class=10)  # same centres, fresh noise
    ours = train_test_probe(x, y, test_x, test_y, seed=0)
    search = GridSearchCV(
        reference_pipeline(1.0),
        {"logisticregression__C": list(C_VALUES)},
        cv=StratifiedKFold(5, shuffle=True, random_state=0),
    ).fit(x, y)
    assert ours.c == [search.best_params_["logisticregression__C"]]
    assert ours.accuracy == pytest.approx(search.score(test_x, test_y) * 100.0)


def test_a_dev_split_chooses_c_by_dev_accuracy():
    x, y = blobs(seed=2)
    dev_x, dev_y = blobs(seed=2, n_per_class=12)
    test_x, test_y = blobs(seed=2, n_per_class=10)
    ours = train_test_probe(x, y, test_x, test_y, dev_features=dev_x, dev_labels=dev_y)
    dev_accuracy = [reference_pipeline(c).fit(x, y).score(dev_x, dev_y) for c in C_VALUES]
    assert ours.c == [C_VALUES[int(np.argmax(dev_accuracy))]]


def test_probes_are_deterministic_under_a_seed():
    x, y = blobs(seed=4)
    first = cross_validated_probe(x, y, folds=3, seed=11, c_values=C_VALUES[:3])
    second = cross_validated_probe(x, y, folds=3, seed=11, c_values=C_VALUES[:3])
    assert first == second


def test_string_labels_are_learned_like_integers():
    x, y = blobs(seed=5)
    names = np.array(["LOC", "NUM", "HUM"])[y]
    assert (
        cross_validated_probe(x, names, folds=5, seed=0, c_values=(1.0,)).accuracy
        == cross_validated_probe(x, y, folds=5, seed=0, c_values=(1.0,)).accuracy
    )


def test_a_separable_label_is_found():
    rng = np.random.default_rng(0)
    x = rng.normal(size=(200, 6))
    y = (x[:, 2] > 0).astype(int)
    assert cross_validated_probe(x, y, folds=5).accuracy > 95.0


def test_a_test_label_unseen_in_training_is_an_error_naming_it():
    x, y = blobs()
    test_x, test_y = x[:5], np.array([0, 1, 2, 7, 1])
    with pytest.raises(ValueError, match=r"label\(s\) \[7\] occur in the evaluation split but never"):
        train_test_probe(x, y, test_x, test_y)
    with pytest.raises(ValueError, match=r"\['spam'\].*dev split|dev split.*\['spam'\]"):
        train_test_probe(
            x, y.astype(str), x[:3], y[:3].astype(str), dev_features=x[:2], dev_labels=np.array(["0", "spam"])
        )


@pytest.mark.parametrize(
    "labels, message",
    [
        (np.zeros(30, int), "at least two classes"),
        (np.array([0] * 27 + [1] * 3), r"class\(es\) \[1\] have fewer than 5 examples"),
    ],
)
def test_unlearnable_label_sets_are_errors(labels, message):
    x = np.random.default_rng(0).normal(size=(30, 4))
    with pytest.raises(ValueError, match=message):
        cross_validated_probe(x, labels, folds=5)


@pytest.mark.parametrize(
    "features, message",
    [
        (np.full((30, 4), np.nan), "NaN or infinite"),
        (np.zeros((30,)), "2-D"),
    ],
)
def test_bad_features_are_errors(features, message):
    with pytest.raises(ValueError, match=message):
        cross_validated_probe(features, np.arange(30) % 2, folds=5)


def test_mismatched_lengths_and_bad_settings_are_errors():
    x, y = blobs()
    with pytest.raises(ValueError, match="one label per row"):
        cross_validated_probe(x, y[:-1])
    with pytest.raises(ValueError, match="folds must be an int ≥ 2"):
        cross_validated_probe(x, y, folds=1)
    with pytest.raises(ValueError, match="c_values must be positive"):
        cross_validated_probe(x, y, c_values=(0.0,))
    with pytest.raises(ValueError, match="test features have 3 columns"):
        train_test_probe(x, y, x[:, :3], y)
    with pytest.raises(ValueError, match="both dev_features and dev_labels"):
        train_test_probe(x, y, x, y, dev_features=x)
