"""DistillationLoss: DSE's mix of matching the teacher's logits and fitting the labels."""

import keras
from keras import ops

OBJECTIVES = ("regression", "classification")


def distillation_loss(targets, student_logits, alpha=0.5, objective="regression"):
    """Per-pair α·‖S − T‖² + (1 − α)·ℓ(S, y) (Barkan et al. 2020, DSE eq. 2).

    Args:
        targets: [batch, 1 + n]: column 0 the label y (a score for regression, a class
            index for classification), columns 1… the teacher's n logits T.
        student_logits: the student's logits S [batch, n].
        alpha: weight of the teacher term, in [0, 1]; 1 ignores the labels, 0 the teacher.
        objective: "regression": ℓ = (S − y)² (n = 1); "classification":
            ℓ = −log softmax(S)[y].

    Returns: [batch] losses.
    """
    if objective not in OBJECTIVES:
        raise ValueError(f"objective must be one of {OBJECTIVES}, got {objective!r}")
    student_logits = ops.cast(student_logits, "float32")
    targets = ops.cast(targets, "float32")
    labels, teacher_logits = targets[:, 0], targets[:, 1:]
    teacher_term = ops.sum(ops.square(student_logits - teacher_logits), axis=-1)
    if objective == "regression":
        label_term = ops.square(student_logits[:, 0] - labels)
    else:
        label_term = keras.losses.sparse_categorical_crossentropy(
            ops.cast(labels, "int32"), student_logits, from_logits=True
        )
    return alpha * teacher_term + (1.0 - alpha) * label_term


@keras.saving.register_keras_serializable(package="keras_sentemb")
class DistillationLoss(keras.losses.Loss):
    """L = mean_i [α·‖S_i − T_i‖² + (1 − α)·ℓ(S_i, y_i)]: the DSE objective, a student S
    trained on both the teacher's logits T and the gold labels y.

    ℓ is the squared error (S − y)² for regression and the softmax cross-entropy on the
    logits for classes. α = 1 is pure distillation (labels unused), α = 0 ordinary
    supervised training (teacher unused); DSE uses α = 0.5.

    | input    | shape            | meaning                                             |
    |----------|------------------|-----------------------------------------------------|
    | y_true   | [batch, 1 + n]   | [label, teacher logit_1 … logit_n] per pair         |
    | y_pred   | [batch, n]       | the student's logits (`DSE` output)                 |

    Build `y_true` with `np.column_stack([labels, teacher_logits])` and pass it as
    `labels=` to `examples_dataset` (`keras_sentemb.training.teacher_logits` caches T).
    Relatives: `SoftmaxPairLoss` (α = 0 for classes), MSE (α = 0 for regression).
    Reference: Barkan et al. 2020, "Scalable Attentive Sentence-Pair Modeling via
    Distilled Sentence Embedding", §3.

    Example:
    >>> import numpy as np
    >>> loss = DistillationLoss(alpha=0.5)
    >>> float(loss(np.array([[1.0, 0.5]]), np.array([[0.0]])))   # 0.5·0.25 + 0.5·1
    0.625
    """

    def __init__(self, alpha=0.5, objective="regression", name="distillation_loss", **kwargs):
        super().__init__(name=name, **kwargs)
        alpha = float(alpha)
        if not 0.0 <= alpha <= 1.0:
            raise ValueError(f"alpha must be in [0, 1], got {alpha}")
        if objective not in OBJECTIVES:
            raise ValueError(f"objective must be one of {OBJECTIVES}, got {objective!r}")
        self.alpha = alpha
        self.objective = objective

    def call(self, y_true, y_pred):
        return distillation_loss(y_true, y_pred, self.alpha, self.objective)

    def get_config(self):
        return {**super().get_config(), "alpha": self.alpha, "objective": self.objective}
