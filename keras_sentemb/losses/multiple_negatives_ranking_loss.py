"""MultipleNegativesRankingLoss: each anchor must pick its positive among the batch."""

import keras
from keras import ops

from keras_sentemb.losses.cross_replica import gather_across_replicas
from keras_sentemb.losses.pair_geometry import l2_normalize, unstack_embeddings


def multiple_negatives_ranking_loss(embeddings, scale=20.0):
    """Cross-entropy of softmax_j(scale·cos(a_i, c_j)) at j = i, per anchor.

    `embeddings` [batch, k, d]: column 0 anchors a, column 1 positives p, further columns
    hard negatives; the candidates c are all positives and hard negatives of the batch.
    Under tf.distribute the candidates are gathered from every replica (the global
    batch), so R replicas of batch B/R train as one device with batch B.

    Returns: [batch] cross-entropies (of this replica's anchors).
    """
    columns = unstack_embeddings(embeddings, 2, "multiple_negatives_ranking_loss")
    anchors = l2_normalize(columns[0])
    gathered, offset = gather_across_replicas(*columns[1:])
    candidates = l2_normalize(ops.concatenate(list(gathered), axis=0))
    logits = scale * ops.matmul(anchors, ops.transpose(candidates))
    targets = offset + ops.arange(ops.shape(anchors)[0])
    return keras.losses.sparse_categorical_crossentropy(targets, logits, from_logits=True)


@keras.saving.register_keras_serializable(package="keras_sentemb")
class MultipleNegativesRankingLoss(keras.losses.Loss):
    """L = −mean_i log [exp(s·cos(a_i, p_i)) / Σ_j exp(s·cos(a_i, c_j))], s = 20, where the
    candidates c_j are every positive (and hard negative) in the batch: the other pairs'
    positives serve as negatives for free.

    | input    | shape              | meaning                                        |
    |----------|--------------------|------------------------------------------------|
    | y_true   | [batch] (unused)   | anything; pipelines pass zeros or scores       |
    | y_pred   | [batch, k≥2, dim]  | anchor, positive, optional hard negatives      |

    Larger batches give more negatives; under `tf.distribute` the candidates come from
    the global batch (all replicas), not one replica's slice. Relatives: `TripletLoss` (one negative, hinge),
    `CoSENTLoss` (graded scores). Reference: Henderson et al. 2017, "Efficient Natural
    Language Response Suggestion for Smart Reply"; sentence-transformers' MNRL.

    Example:
    >>> import numpy as np
    >>> e = np.array([[[1.0, 0.0], [1.0, 0.0]], [[0.0, 1.0], [0.0, 1.0]]])
    >>> round(float(MultipleNegativesRankingLoss()(np.zeros(2), e)), 6)   # log(1 + e^-20)
    0.0
    """

    def __init__(self, scale=20.0, name="multiple_negatives_ranking_loss", **kwargs):
        super().__init__(name=name, **kwargs)
        self.scale = float(scale)

    def call(self, y_true, y_pred):
        return multiple_negatives_ranking_loss(y_pred, self.scale)

    def get_config(self):
        return {**super().get_config(), "scale": self.scale}
