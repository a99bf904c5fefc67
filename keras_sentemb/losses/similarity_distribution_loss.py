"""SimilarityDistributionLoss: a gold score against a predicted distribution over score classes."""

import keras
from keras import ops

OBJECTIVES = ("kl", "mse")


def score_classes(score_range):
    """r = the integer scores low, low + 1, …, high (STS-B [0, 5] → 6 classes)."""
    low, high = (int(round(x)) for x in score_range)
    if high <= low:
        raise ValueError(f"score_range must be (low, high) with high > low, got {score_range}")
    return ops.arange(low, high + 1, dtype="float32")


def sparse_target_distribution(scores, score_range=(0.0, 5.0)):
    """Tai et al. (2015)'s target p for a score y: the mass sits on the two classes around y,
    p_⌊y⌋ = ⌊y⌋ − y + 1 and p_⌊y⌋+1 = y − ⌊y⌋, so that rᵀp = y exactly. [batch, K].

    >>> sparse_target_distribution([3.6]).numpy().round(2).tolist()
    [[0.0, 0.0, 0.0, 0.4, 0.6, 0.0]]
    """
    classes = score_classes(score_range)
    scores = ops.clip(ops.cast(ops.reshape(scores, (-1, 1)), "float32"), classes[0], classes[-1])
    return ops.maximum(0.0, 1.0 - ops.abs(scores - classes[None, :]))


def similarity_distribution_loss(scores, probabilities, objective="kl", score_range=(0.0, 5.0)):
    """Per pair: KL(p ‖ p̂) with p the sparse target of the score, or (rᵀp̂ − y)².

    Args:
        scores: gold scores y [batch] in `score_range`.
        probabilities: the predicted distribution p̂ [batch, K] over the K integer scores.
        objective: "kl" or "mse".

    Returns: [batch] losses.
    """
    if objective not in OBJECTIVES:
        raise ValueError(f"objective must be one of {OBJECTIVES}, got {objective!r}")
    probabilities = ops.cast(probabilities, "float32")
    if objective == "mse":
        expected = ops.sum(probabilities * score_classes(score_range)[None, :], axis=-1)
        return ops.square(expected - ops.cast(ops.reshape(scores, (-1,)), "float32"))
    target = sparse_target_distribution(scores, score_range)
    epsilon = 1e-7
    return ops.sum(target * (ops.log(target + epsilon) - ops.log(probabilities + epsilon)), axis=-1)


@keras.saving.register_keras_serializable(package="keras_sentemb")
class SimilarityDistributionLoss(keras.losses.Loss):
    """The FT/NT objective of the direct-network-transfer paper (after Tai et al. 2015):
    the classifier predicts p̂ over the integer scores r = (low … high), the score is
    ŷ = rᵀp̂, and the loss is KL(p ‖ p̂) against the sparse target p of the gold score
    ("kl") or (ŷ − y)² ("mse").

    | input    | shape          | meaning                                        |
    |----------|----------------|------------------------------------------------|
    | y_true   | [batch]        | gold scores in `score_range`                   |
    | y_pred   | [batch, K]     | p̂, softmax over K = high − low + 1 classes    |

    Relatives: `CosineSimilarityLoss` (DNT: cosine of the two embeddings against the
    score), `SoftmaxPairLoss` (classes, not scores).
    Reference: Zhang, Wilson & Mihalcea 2018 (direct network transfer); Tai, Socher &
    Manning 2015, §4.2.

    Example:
    >>> import numpy as np
    >>> p = np.array([[0.0, 0.0, 0.0, 0.4, 0.6, 0.0]])
    >>> round(float(SimilarityDistributionLoss("mse")(np.array([3.6]), p)), 6)
    0.0
    """

    def __init__(self, objective="kl", score_range=(0.0, 5.0), name="similarity_distribution_loss", **kwargs):
        super().__init__(name=name, **kwargs)
        if objective not in OBJECTIVES:
            raise ValueError(f"objective must be one of {OBJECTIVES}, got {objective!r}")
        score_classes(score_range)
        self.objective = objective
        self.score_range = tuple(float(x) for x in score_range)

    def call(self, y_true, y_pred):
        return similarity_distribution_loss(y_true, y_pred, self.objective, self.score_range)

    def get_config(self):
        return {**super().get_config(), "objective": self.objective, "score_range": list(self.score_range)}
