"""Test metrics of any pair scorer (CrossEncoder, DSE: anything with `predict_pairs`)."""

import numpy as np

from keras_sentemb.data.examples import LabeledPairs, ScoredPairs
from keras_sentemb.evaluation.pair_classification import accuracy_and_f1
from keras_sentemb.evaluation.sts import correlations


def pair_scorer_metrics(model, pairs, batch_size=64):
    """Scores `pairs` with `model.predict_pairs` and measures them against the gold labels.

    `ScoredPairs` (STS): {"spearman", "pearson"} × 100 of the predicted scores;
    `LabeledPairs` (MRPC, NLI): {"accuracy", "f1"} × 100 of the arg-max class (F1 of
    class 1).

    (Not run as a doctest: it reads files of the benchmark data folder (docs/data.md).)
        pair_scorer_metrics(cross_encoder, read_scored_pairs("stsb/test.tsv"))
        # -> {'spearman': 81.33..., 'pearson': 82.45...}
    """
    if not isinstance(pairs, (ScoredPairs, LabeledPairs)):
        raise TypeError(f"pairs must be ScoredPairs or LabeledPairs, got {type(pairs).__name__}")
    predictions = model.predict_pairs(pairs.sentences1, pairs.sentences2, batch_size=batch_size, progress=False)
    if isinstance(pairs, ScoredPairs):
        spearman, pearson = correlations(predictions, pairs.scores)
        return {"spearman": spearman, "pearson": pearson}
    accuracy, f1 = accuracy_and_f1(np.asarray(predictions).argmax(axis=1), np.asarray(pairs.labels))
    return {"accuracy": accuracy, "f1": f1}
