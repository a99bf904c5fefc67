"""MaxSimRankingLoss: in-batch (and hard-negative) ranking of token vectors by MaxSim — ColBERT's training loss."""

import keras
from keras import ops

from keras_sentemb.losses.multiple_negatives_ranking_loss import multiple_negatives_ranking_loss, relevant_keys


def maxsim_matrix(queries, documents, length_normalize=False):
    """MaxSim scores [queries, documents] of padded token vectors, in Keras ops (differentiable):

        s(q, d) = Σ_i max_j q_i · d_j        (÷ the query's vectors with `length_normalize`)

    `queries` [Q, Tq, dim], `documents` [D, Td, dim]: a row of zeros is no token (what the training model puts where
    a text has no scored token): a query's adds 0, a document's is left out of the max. The same scores as
    `utils.maxsim.maxsim` of the unpadded rows (which the index and `similarity` use).

    >>> import numpy as np
    >>> q = np.array([[[1.0, 0.0], [0.0, 1.0], [0.0, 0.0]]])
    >>> d = np.array([[[1.0, 0.0], [0.0, 0.0]], [[0.6, 0.8], [0.0, -1.0]]])
    >>> np.round(ops.convert_to_numpy(maxsim_matrix(q, d)), 3).tolist()
    [[1.0, 1.4]]
    """
    scores = ops.einsum("qid,ejd->qeij", queries, documents)  # [Q, D, Tq, Td]
    present = ops.sum(ops.square(documents), axis=-1) > 0  # [D, Td]
    scores = ops.where(present[None, :, None, :], scores, -1e9)
    best = ops.max(scores, axis=-1)  # [Q, D, Tq]
    query_present = ops.cast(ops.sum(ops.square(queries), axis=-1) > 0, best.dtype)  # [Q, Tq]
    total = ops.sum(best * query_present[:, None, :], axis=-1)
    if length_normalize:
        total = total / ops.maximum(ops.sum(query_present, axis=-1, keepdims=True), 1.0)
    return total


@keras.saving.register_keras_serializable(package="keras_sentemb")
class MaxSimRankingLoss(keras.losses.Loss):
    """ColBERT's contrastive objective (Khattab & Zaharia 2020; sentence-transformers' MultiVectorEncoder
    `MultipleNegativesRankingLoss`, PyLate's `Contrastive`):

        L = −mean_i log [exp(s·MaxSim(q_i, d_i⁺)) / Σ_j exp(s·MaxSim(q_i, d_j))]

    over the batch's queries (column 0) and documents (their positives, column 1, and hard negatives, columns 2…):
    every other row's documents are negatives too. s = `scale`: 1 by default, as sentence-transformers and PyLate
    (MaxSim is a sum over the query's vectors, already spread over [−|q|, |q|]). With `relevant_pairs` (every
    (query id, document id) known relevant), `y_true` holds each row's query id and its documents' ids and a
    candidate known relevant is left out of the softmax (`MultipleNegativesRankingLoss`'s rule).

    | input    | shape               | meaning                                                         |
    |----------|---------------------|-----------------------------------------------------------------|
    | y_true   | [batch] / [batch, k] | unused / with `relevant_pairs`: query id, document ids          |
    | y_pred   | [batch, k≥2, T, dim] | token vectors, zero rows where no token (`MultiVectorTraining`) |

    Example:
    >>> import numpy as np
    >>> batch = np.array([[[[1.0, 0.0]], [[1.0, 0.0]]], [[[0.0, 1.0]], [[0.0, 1.0]]]])
    >>> round(float(MaxSimRankingLoss()(np.zeros(2), batch)), 4)   # log(1 + e^-1)
    0.3133
    """

    def __init__(self, scale=1.0, length_normalize=False, relevant_pairs=None, name="maxsim_ranking_loss", **kwargs):
        super().__init__(name=name, **kwargs)
        if isinstance(scale, bool) or not isinstance(scale, (int, float)) or not scale > 0:
            raise ValueError(f"MaxSimRankingLoss: scale must be a number > 0, got {scale!r}")
        self.scale, self.length_normalize = float(scale), bool(length_normalize)
        self.relevant_pairs = None if relevant_pairs is None else [list(pair) for pair in relevant_pairs]
        self._known = None if relevant_pairs is None else relevant_keys(relevant_pairs)

    def call(self, y_true, y_pred):
        def similarity(queries, documents):
            return maxsim_matrix(queries, documents, self.length_normalize)

        if self._known is not None:
            return multiple_negatives_ranking_loss(
                y_pred, self.scale, ids=y_true, known=self._known, cosine=False, similarity=similarity
            )
        return multiple_negatives_ranking_loss(y_pred, self.scale, cosine=False, similarity=similarity)

    def get_config(self):
        return {
            **super().get_config(),
            "scale": self.scale,
            "length_normalize": self.length_normalize,
            "relevant_pairs": self.relevant_pairs,
        }
