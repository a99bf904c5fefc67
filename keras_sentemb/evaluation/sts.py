"""Semantic textual similarity: Spearman correlation of cosine similarity with gold."""

import warnings

import numpy as np
from scipy.stats import pearsonr, spearmanr

from keras_sentemb.models.column_embedding import embed_pairs_once


def cosine_scores(encoder, sentences1, sentences2, batch_size=64, progress=None):
    """cos(u_i, v_i) for each pair, embedding every distinct sentence once."""
    u, v = embed_pairs_once(
        lambda texts: encoder.encode(texts, batch_size=batch_size, normalize=True, progress=progress),
        sentences1,
        sentences2,
    )
    return np.sum(u * v, axis=1)


def sts_spearman(encoder, pairs, batch_size=64, progress=None):
    """Spearman ρ × 100 between cos(u, v) and the gold scores of `pairs` (`ScoredPairs`).

    ρ = Pearson correlation of the ranks of the two lists (ties get their average rank),
    the STS-B measure of SBERT (Reimers & Gurevych 2019, Table 1), reported × 100.

    Example:
    (Not run as a doctest: it reads files of the benchmark data folder (docs/data.md).)
        from keras_sentemb.data.examples import read_scored_pairs
        sts_spearman(encoder, read_scored_pairs("data/stsb/test.tsv"))
        # -> 82.04
    """
    scores = cosine_scores(encoder, pairs.sentences1, pairs.sentences2, batch_size=batch_size, progress=progress)
    return correlations(scores, pairs.scores)[0]


def correlations(predicted, gold):
    """`(Spearman ρ × 100, Pearson r × 100)` of predicted scores against gold scores.

    When either list is constant the correlations are undefined: both are returned as
    NaN and a `RuntimeWarning` says which list is constant (so one degenerate model in a
    report does not stop the others).

    >>> [round(value, 1) for value in correlations([0.1, 0.4, 0.3], [1.0, 3.0, 2.0])]
    [100.0, 98.2]
    """
    predicted = np.asarray(predicted, dtype=np.float64).reshape(-1)
    gold = np.asarray(gold, dtype=np.float64).reshape(-1)
    if predicted.shape != gold.shape:
        raise ValueError(f"{predicted.size} predictions for {gold.size} gold scores")
    if predicted.size < 2:
        raise ValueError("correlations need at least two pairs")
    for name, values in (("predicted scores", predicted), ("gold scores", gold)):
        if np.ptp(values) == 0:
            warnings.warn(
                f"correlations: the {name} are constant (all {float(values[0]):.6g}); "
                "Spearman and Pearson are undefined, returning NaN",
                RuntimeWarning,
                stacklevel=2,
            )
            return float("nan"), float("nan")
    return (float(spearmanr(predicted, gold).statistic * 100.0), float(pearsonr(predicted, gold).statistic * 100.0))
