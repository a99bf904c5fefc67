"""CosineSimilarityLoss: MSE between cos(u, v) and the normalised gold score."""

import keras
from keras import ops

from keras_sentemb.losses.pair_geometry import pairwise_cosine, unstack_embeddings


def cosine_similarity_loss(scores, embeddings, score_range=(0.0, 5.0), target_range=(0.0, 1.0)):
    """Per-pair squared error (cos(u, v) − t)², t = the score mapped linearly from
    `score_range` onto `target_range` ([0, 1] as in SBERT, or [−1, 1] in the DNT paper).

    Args:
        scores: gold scores [batch].
        embeddings: stacked pair embeddings [batch, 2, d] (u = [:, 0], v = [:, 1]).

    Returns: [batch] squared errors.
    """
    u, v = unstack_embeddings(embeddings, 2, "cosine_similarity_loss")[:2]
    low, high = score_range
    t_low, t_high = target_range
    scores = ops.cast(ops.reshape(scores, (-1,)), u.dtype)
    target = (scores - low) / (high - low) * (t_high - t_low) + t_low
    return ops.square(pairwise_cosine(u, v) - target)


@keras.saving.register_keras_serializable(package="keras_sentemb")
class CosineSimilarityLoss(keras.losses.Loss):
    """L = mean_i (cos(u_i, v_i) − t_i)², t_i = score_i rescaled from `score_range` to
    `target_range`: SBERT's regression objective and the DNT paper's direct network
    transfer loss.

    | input    | shape             | meaning                                   |
    |----------|-------------------|-------------------------------------------|
    | y_true   | [batch]           | gold similarity scores, in `score_range`  |
    | y_pred   | [batch, 2, dim]   | u and v stacked (SBERT(objective="regression")) |

    Relatives: `CoSENTLoss` (only the order of the scores matters),
    `MultipleNegativesRankingLoss` (positives only, in-batch negatives).
    Reference: Reimers & Gurevych 2019, §3 "Regression Objective Function".

    Example:
    >>> import numpy as np
    >>> pairs = np.array([[[1.0, 0.0], [1.0, 0.0]], [[1.0, 0.0], [0.0, 1.0]]])
    >>> float(CosineSimilarityLoss()(np.array([5.0, 0.0]), pairs))
    0.0
    """

    def __init__(self, score_range=(0.0, 5.0), target_range=(0.0, 1.0), name="cosine_similarity_loss", **kwargs):
        super().__init__(name=name, **kwargs)
        self.score_range = tuple(score_range)
        self.target_range = tuple(target_range)

    def call(self, y_true, y_pred):
        return cosine_similarity_loss(y_true, y_pred, self.score_range, self.target_range)

    def get_config(self):
        return {**super().get_config(), "score_range": list(self.score_range), "target_range": list(self.target_range)}
