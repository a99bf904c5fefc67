"""An ensemble teacher: the mean of several pair scorers' scores."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from keras_sentemb.models.cross_encoder import validate_pair_lists
from keras_sentemb.utils.types import Texts


class MeanPairScorer:
    """Scores aligned pairs with the mean of k pair scorers: s(a, b) = (1/k)·Σ_j s_j(a, b).

    The members must score on one scale: the zoo's STS-B cross-encoders (sigmoid of a logit
    trained on score / 5) and the cosines of the SBERT students (trained toward score / 5)
    are. It has a cross-encoder's labelling interface (`predict_pairs`, `num_labels`,
    `weights`), so it can be the teacher of a DSE student (`cached_teacher_logits`) and label
    silver pairs (`label_silver_pairs`); the cache keys fingerprint every member's weights.

    Why: a cross-encoder and a bi-encoder make different errors. On STS-B dev the zoo's
    MPNet cross-encoder scores 89.16, the MPNet SBERT's cosine 90.65 and their mean 91.62
    (docs/distillation.md), a better teacher than either.

    Args:
        scorers: two or more objects with `predict_pairs(first, second, batch_size=,
            progress=)` and `weights` (`CrossEncoder`, `CosinePairScorer`, a `DSE`), each with
            one score a pair.

    Example:
    >>> class Constant:  # a stand-in; in practice CrossEncoder and CosinePairScorer
    ...     num_labels, weights = 1, []
    ...     def __init__(self, value): self.value = value
    ...     def predict_pairs(self, first, second, batch_size=64, progress=None):
    ...         return np.full(len(first), self.value, np.float32)
    >>> MeanPairScorer([Constant(0.2), Constant(0.6)]).predict_pairs(["a", "b"], ["c", "d"])
    array([0.4, 0.4], dtype=float32)
    """

    num_labels = 1

    def __init__(self, scorers: Sequence):
        scorers = list(scorers)
        if len(scorers) < 2:
            raise ValueError(f"an ensemble needs two or more scorers, got {len(scorers)}")
        for scorer in scorers:
            if not callable(getattr(scorer, "predict_pairs", None)) or not hasattr(scorer, "weights"):
                raise TypeError(f"{type(scorer).__name__} has no predict_pairs(first, second) and weights")
            if getattr(scorer, "num_labels", 1) != 1:
                raise ValueError(f"{type(scorer).__name__} gives {scorer.num_labels} scores a pair; the mean needs 1")
        self.scorers = scorers

    @property
    def weights(self):
        """Every member's weights, in member order (what a cache key of its labels fingerprints)."""
        return [weight for scorer in self.scorers for weight in scorer.weights]

    def predict_pairs(self, first: Texts, second: Texts, batch_size: int = 64, progress: bool | None = None):
        """The members' mean score of each aligned pair, float32 [N] (each member is given
        `batch_size` and `progress`).

        Raises: ValueError when the lists differ in length.
        """
        return np.mean(self.member_scores(first, second, batch_size, progress), axis=0).astype(np.float32)

    def member_scores(self, first: Texts, second: Texts, batch_size: int = 64, progress: bool | None = None):
        """Each member's score of each aligned pair, float32 [k, N] (their mean is `predict_pairs`):
        to report the members beside the ensemble without scoring the pairs twice."""
        first, second = validate_pair_lists(first, second)
        return np.stack(
            [
                np.asarray(
                    scorer.predict_pairs(first, second, batch_size=batch_size, progress=progress), np.float32
                ).reshape(len(first))
                for scorer in self.scorers
            ]
        )
