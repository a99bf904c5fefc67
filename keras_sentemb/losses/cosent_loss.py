"""CoSENTLoss: rank pairs by cosine in the same order as their gold scores."""

import keras
from keras import ops

from keras_sentemb.losses.cross_replica import gather_across_replicas
from keras_sentemb.losses.pair_geometry import pairwise_cosine, unstack_embeddings


def cosent_loss(scores, embeddings, scale=20.0):
    """log(1 + Σ_{(i,j): s_i > s_j} exp(scale·(cos_j − cos_i))) over the batch (a scalar).

    `embeddings` [batch, 2, d] holds (u, v) per pair; `scores` [batch] the gold scores.
    Under tf.distribute the cosines and scores of every replica are gathered first, so
    each replica computes the loss of the global batch.
    """
    u, v = unstack_embeddings(embeddings, 2, "cosent_loss")[:2]
    return ranking_loss(pairwise_cosine(u, v), scores, scale)


def ranking_loss(similarities, scores, scale=20.0):
    """CoSENT's ranking term on any pair scores: log(1 + Σ_{(i,j): s_i > s_j} exp(scale·(p_j − p_i)))
    over the batch (a scalar), `similarities` p [batch] the model's scores of the pairs, `scores`
    s [batch] the targets whose order p must follow. Only the order of s matters.

    `cosent_loss` is this on the cosines of (u, v); `DistillationLoss(ranking_weight=γ)` applies it
    to DSE's pair head and cosine. Under tf.distribute, p and s of every replica are gathered.

    Example:
    >>> import numpy as np
    >>> round(float(ranking_loss(np.array([0.9, 0.1]), np.array([5.0, 1.0]))), 6)  # log(1 + e^-16)
    0.0
    """
    p = ops.reshape(similarities, (-1,)) * scale
    scores = ops.cast(ops.reshape(scores, (-1,)), p.dtype)
    (p, scores), _ = gather_across_replicas(p, scores)
    differences = p[None, :] - p[:, None]  # [i, j] = p_j − p_i
    ordered = ops.cast(scores[:, None] > scores[None, :], p.dtype)  # s_i > s_j
    # Pairs that do not count get −1e12, so exp(·) = 0; the 0 stands for the "1 +".
    masked = differences - (1.0 - ordered) * 1e12
    flat = ops.concatenate([ops.zeros((1,), p.dtype), ops.reshape(masked, (-1,))], axis=0)
    return ops.logsumexp(flat)


@keras.saving.register_keras_serializable(package="keras_sentemb")
class CoSENTLoss(keras.losses.Loss):
    """L = log(1 + Σ_{s_i > s_j} exp(λ(cos(u_j, v_j) − cos(u_i, v_i)))), λ = 20: every pair
    with a higher gold score must have a higher cosine than every pair with a lower one.
    Only the order of the scores matters, so no rescaling is needed.

    | input    | shape            | meaning                      |
    |----------|------------------|------------------------------|
    | y_true   | [batch]          | gold similarity scores       |
    | y_pred   | [batch, 2, dim]  | u and v stacked              |

    The value is one number for the whole batch (under `tf.distribute`, the global
    batch of all replicas). Relatives: `CosineSimilarityLoss` (fits
    the cosine to the score itself). Reference: Su Jianlin 2022, "CoSENT";
    sentence-transformers' `CoSENTLoss`.

    Example:
    >>> import numpy as np
    >>> e = np.array([[[1.0, 0.0], [1.0, 0.0]], [[1.0, 0.0], [0.0, 1.0]]])  # cos 1 and 0
    >>> round(float(CoSENTLoss()(np.array([5.0, 1.0]), e)), 6)   # log(1 + e^-20)
    0.0
    """

    def __init__(self, scale=20.0, name="cosent_loss", **kwargs):
        super().__init__(name=name, **kwargs)
        self.scale = float(scale)

    def call(self, y_true, y_pred):
        # The batch's L repeated once per row: Keras averages rows (back to L) and, under
        # tf.distribute, scales each replica's share by 1/R, which it does not do for a
        # loss that returns a scalar.
        loss = cosent_loss(y_true, y_pred, self.scale)
        return ops.ones_like(ops.reshape(ops.cast(y_true, loss.dtype), (-1,))) * loss

    def get_config(self):
        return {**super().get_config(), "scale": self.scale}
