"""DistillationLoss: DSE's mix of matching the teacher's logits and fitting the labels."""

import keras
from keras import ops

from keras_sentemb.losses.cosent_loss import ranking_loss

OBJECTIVES = ("regression", "classification")


def distillation_loss(
    targets,
    student_logits,
    alpha=0.5,
    objective="regression",
    cosine_weight=0.0,
    ranking_weight=0.0,
    ranking_scale=20.0,
):
    """Per-pair α·‖S − T‖² + (1 − α)·ℓ(S, y) (Barkan et al. 2020, DSE eq. 2), plus
    Σ_c β_c·(cos_c(u, v) − y)² with β = `cosine_weight` > 0, plus, with γ = `ranking_weight` > 0,
    the batch's CoSENT ranking terms γ·[R(S, α·T + (1 − α)·y) + Σ_c R(cos_c, y)] (`ranking_loss`,
    R(p, s) = log(1 + Σ_{s_i > s_j} exp(λ·(p_j − p_i))), λ = `ranking_scale`): pair scores in the
    order of their targets, which is what a Spearman correlation reads.

    Args:
        targets: [batch, 1 + n]: column 0 the label y (a score for regression, a class
            index for classification), columns 1… the teacher's n logits T.
        student_logits: the student's logits S [batch, n]; with `cosine_weight` > 0,
            [batch, n + c] whose last c columns are cosines of the pair's embeddings (c = 1,
            or one a prefix width of a Matryoshka DSE, `DSE(matryoshka_dims=...)`).
        alpha: weight of the teacher term, in [0, 1]; 1 ignores the labels, 0 the teacher.
        objective: "regression": ℓ = (S − y)² (n = 1); "classification":
            ℓ = −log softmax(S)[y].
        cosine_weight: β, the weight of SBERT's cosine term (regression only): it keeps
            the student's embeddings good for cosine search, not only for its head. A
            sequence gives one weight a cosine column (the prefixes' weights); a number
            weighs every column alike.
        ranking_weight: γ ≥ 0 (regression only); the batch's ranking terms are one number,
            added to every pair's loss (so their mean over the batch is that number).
        ranking_scale: λ of the ranking terms (CoSENT's 20).

    Returns: [batch] losses.
    """
    if objective not in OBJECTIVES:
        raise ValueError(f"objective must be one of {OBJECTIVES}, got {objective!r}")
    if ranking_weight and objective != "regression":
        raise ValueError("the ranking terms need a similarity score y: objective='regression'")
    student_logits = ops.cast(student_logits, "float32")
    targets = ops.cast(targets, "float32")
    labels, teacher_logits = targets[:, 0], targets[:, 1:]
    cosine_term, ranking_term = 0.0, 0.0
    if _any_weight(cosine_weight):
        if objective != "regression":
            raise ValueError("the cosine term needs a similarity score y: objective='regression'")
        logits = teacher_logits.shape[-1]
        cosines = student_logits[:, logits:]
        weights = _cosine_weights(cosine_weight, cosines.shape[-1])
        cosine_term = ops.sum(weights * ops.square(cosines - labels[:, None]), axis=-1)
        if ranking_weight:
            for column in range(cosines.shape[-1]):
                ranking_term = ranking_term + ranking_loss(cosines[:, column], labels, ranking_scale)
        student_logits = student_logits[:, :logits]
    teacher_term = ops.sum(ops.square(student_logits - teacher_logits), axis=-1)
    if objective == "regression":
        label_term = ops.square(student_logits[:, 0] - labels)
    else:
        label_term = keras.losses.sparse_categorical_crossentropy(
            ops.cast(labels, "int32"), student_logits, from_logits=True
        )
    if ranking_weight:
        target = alpha * teacher_logits[:, 0] + (1.0 - alpha) * labels
        ranking_term = ranking_term + ranking_loss(student_logits[:, 0], target, ranking_scale)
        ranking_term = ranking_weight * ranking_term
    return alpha * teacher_term + (1.0 - alpha) * label_term + cosine_term + ranking_term


def _any_weight(cosine_weight):
    return any(cosine_weight) if isinstance(cosine_weight, (tuple, list)) else bool(cosine_weight)


def _cosine_weights(cosine_weight, columns):
    """The weight of each of `columns` cosine columns, as a float32 tensor [columns]."""
    if columns is not None and columns < 1:
        raise ValueError(
            "cosine_weight > 0 needs the student's cosine column(s) after its logits (DSE(cosine_weight=...))"
        )
    if isinstance(cosine_weight, (tuple, list)):
        if columns is not None and len(cosine_weight) != columns:
            raise ValueError(f"{len(cosine_weight)} cosine weights for {columns} cosine columns")
        return ops.convert_to_tensor(cosine_weight, "float32")
    return ops.full((columns,), float(cosine_weight), "float32")


def check_cosine_weight(cosine_weight):
    """A non-negative number or a non-empty sequence of them (one a cosine column), as float(s)."""
    if isinstance(cosine_weight, (tuple, list)):
        weights = [float(w) for w in cosine_weight]
        if not weights or any(w < 0.0 for w in weights):
            raise ValueError(f"cosine_weight must be ≥ 0 (each), got {cosine_weight!r}")
        return weights
    cosine_weight = float(cosine_weight)
    if cosine_weight < 0.0:
        raise ValueError(f"cosine_weight must be ≥ 0, got {cosine_weight}")
    return cosine_weight


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

    `cosine_weight=β` > 0 (regression) adds β·(cos(u, v) − y)², SBERT's cosine objective on
    the student's embeddings; `y_pred` then carries cos(u, v) as a last column (`DSE` with
    `cosine_weight` does so in training). A Matryoshka DSE (`matryoshka_dims`) carries one
    cosine a prefix width, cos(u[:m], v[:m]), and the term is Σ_m β_m·(cos_m − y)²:
    `MatryoshkaLoss`'s rule on DSE's cosine term, β a number or one weight a prefix.
    `ranking_weight=γ` > 0 (regression) adds CoSENT's ranking term over the batch,
    γ·[R(S, α·T + (1 − α)·y) + Σ_c R(cos_c, y)], R(p, s) = log(1 + Σ_{s_i > s_j} exp(λ(p_j − p_i))):
    the squared errors fit the values, R their order, which is all a Spearman correlation reads.

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

    def __init__(
        self,
        alpha=0.5,
        objective="regression",
        cosine_weight=0.0,
        ranking_weight=0.0,
        ranking_scale=20.0,
        name="distillation_loss",
        **kwargs,
    ):
        super().__init__(name=name, **kwargs)
        alpha = float(alpha)
        if not 0.0 <= alpha <= 1.0:
            raise ValueError(f"alpha must be in [0, 1], got {alpha}")
        if objective not in OBJECTIVES:
            raise ValueError(f"objective must be one of {OBJECTIVES}, got {objective!r}")
        cosine_weight = check_cosine_weight(cosine_weight)
        if _any_weight(cosine_weight) and objective != "regression":
            raise ValueError("the cosine term needs a similarity score y: objective='regression'")
        ranking_weight, ranking_scale = float(ranking_weight), float(ranking_scale)
        if ranking_weight < 0.0 or ranking_scale <= 0.0:
            raise ValueError(f"ranking_weight must be ≥ 0 and ranking_scale > 0, got {ranking_weight}, {ranking_scale}")
        if ranking_weight and objective != "regression":
            raise ValueError("the ranking terms need a similarity score y: objective='regression'")
        self.alpha = alpha
        self.objective = objective
        self.cosine_weight = cosine_weight
        self.ranking_weight = ranking_weight
        self.ranking_scale = ranking_scale

    def call(self, y_true, y_pred):
        return distillation_loss(
            y_true, y_pred, self.alpha, self.objective, self.cosine_weight, self.ranking_weight, self.ranking_scale
        )

    def get_config(self):
        return {
            **super().get_config(),
            "alpha": self.alpha,
            "objective": self.objective,
            "cosine_weight": self.cosine_weight,
            "ranking_weight": self.ranking_weight,
            "ranking_scale": self.ranking_scale,
        }
