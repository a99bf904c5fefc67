"""MultipleNegativesRankingLoss: each anchor must pick its positive among the batch."""

import keras
from keras import ops

from keras_sentemb.losses.cross_replica import gather_across_replicas
from keras_sentemb.losses.pair_geometry import l2_normalize, unstack_embeddings


def multiple_negatives_ranking_loss(embeddings, scale=20.0, groups=None):
    """Cross-entropy of softmax_j(scale·cos(a_i, c_j)) at j = i, per anchor.

    `embeddings` [batch, k, d]: column 0 anchors a, column 1 positives p, further columns
    hard negatives; the candidates c are all positives and hard negatives of the batch.
    `groups` [batch] (optional): rows of one group share their anchor (one query with several
    relevant documents): another row's positive is then no negative for it, and is left out
    of its softmax. Under tf.distribute the candidates (and groups) are gathered from every
    replica (the global batch), so R replicas of batch B/R train as one device with batch B.

    Returns: [batch] cross-entropies (of this replica's anchors).
    """
    columns = unstack_embeddings(embeddings, 2, "multiple_negatives_ranking_loss")
    anchors = l2_normalize(columns[0])
    extra = () if groups is None else (ops.cast(ops.reshape(groups, [-1]), "float32"),)
    gathered, offset = gather_across_replicas(*columns[1:], *extra)
    candidate_columns = list(gathered[: len(columns) - 1])
    candidates = l2_normalize(ops.concatenate(candidate_columns, axis=0))
    logits = scale * ops.matmul(anchors, ops.transpose(candidates))
    rows = ops.shape(anchors)[0]
    targets = offset + ops.arange(rows)
    if groups is not None:
        own_groups, all_groups = extra[0], gathered[-1]
        # positives of other rows in the same group: not negatives (−∞); hard negatives stay
        same = ops.equal(ops.expand_dims(own_groups, 1), ops.expand_dims(all_groups, 0))
        other = ops.not_equal(ops.expand_dims(targets, 1), ops.expand_dims(ops.arange(ops.shape(all_groups)[0]), 0))
        masked = ops.logical_and(same, other)
        hard = ops.zeros([rows, ops.shape(candidates)[0] - ops.shape(all_groups)[0]], dtype="bool")
        logits = ops.where(ops.concatenate([masked, hard], axis=1), -1e9, logits)
    return keras.losses.sparse_categorical_crossentropy(targets, logits, from_logits=True)


@keras.saving.register_keras_serializable(package="keras_sentemb")
class MultipleNegativesRankingLoss(keras.losses.Loss):
    """L = −mean_i log [exp(s·cos(a_i, p_i)) / Σ_j exp(s·cos(a_i, c_j))], s = 20, where the
    candidates c_j are every positive (and hard negative) in the batch: the other pairs'
    positives serve as negatives for free.

    | input    | shape              | meaning                                        |
    |----------|--------------------|------------------------------------------------|
    | y_true   | [batch]            | unused; with `same_anchor_groups`, group ids   |
    | y_pred   | [batch, k≥2, dim]  | anchor, positive, optional hard negatives      |

    Larger batches give more negatives; under `tf.distribute` the candidates come from
    the global batch (all replicas), not one replica's slice. With `same_anchor_groups=True`,
    `y_true` holds a group id per row (e.g. the query's index when one query has several
    relevant documents): a row's softmax leaves out the positives of other rows of its group,
    which are no negatives for it. Relatives: `TripletLoss` (one negative, hinge),
    `CoSENTLoss` (graded scores). Reference: Henderson et al. 2017, "Efficient Natural
    Language Response Suggestion for Smart Reply"; sentence-transformers' MNRL.

    Example:
    >>> import numpy as np
    >>> e = np.array([[[1.0, 0.0], [1.0, 0.0]], [[0.0, 1.0], [0.0, 1.0]]])
    >>> round(float(MultipleNegativesRankingLoss()(np.zeros(2), e)), 6)   # log(1 + e^-20)
    0.0
    """

    def __init__(self, scale=20.0, same_anchor_groups=False, name="multiple_negatives_ranking_loss", **kwargs):
        super().__init__(name=name, **kwargs)
        self.scale = float(scale)
        self.same_anchor_groups = bool(same_anchor_groups)

    def call(self, y_true, y_pred):
        return multiple_negatives_ranking_loss(y_pred, self.scale, y_true if self.same_anchor_groups else None)

    def get_config(self):
        return {**super().get_config(), "scale": self.scale, "same_anchor_groups": self.same_anchor_groups}
