"""SpladeLoss: in-batch ranking of sparse vectors by dot product, with FLOPS regularisers that keep them sparse."""

import keras
from keras import ops

from keras_sentemb.losses.multiple_negatives_ranking_loss import multiple_negatives_ranking_loss, relevant_keys
from keras_sentemb.losses.pair_geometry import unstack_embeddings


def flops(weights):
    """The FLOPS regulariser of a batch of sparse vectors [n, V] (Paria et al. 2020): Σ_j (mean_i w_ij)², the
    expected number of multiplications a dot product of two such vectors costs, smoothed.

    >>> round(float(flops(ops.convert_to_tensor([[1.0, 0.0], [3.0, 2.0]]))), 6)   # 2² + 1²
    5.0
    """
    return ops.sum(ops.square(ops.mean(weights, axis=0)))


@keras.saving.register_keras_serializable(package="keras_sentemb")
class SpladeLoss(keras.losses.Loss):
    """SPLADE's training objective (Formal et al. 2021, 2022), sentence-transformers' `SpladeLoss` around its
    `SparseMultipleNegativesRankingLoss`:

        L = −mean_i log [exp(s·q_i·d_i⁺) / Σ_j exp(s·q_i·d_j)] + λ_q·FLOPS(q) + λ_d·FLOPS(d)

    over the batch's queries q (column 0) and documents d (its positives and hard negatives, columns 1…), scored by
    dot product (the vectors are not normalised: their weights are what a search adds up), s = `scale`, and
    FLOPS(W) = Σ_j (mean_i w_ij)² (`flops`). The regularisers push the average weight of every vocabulary entry
    down, so that vectors grow sparse and a search cheap; λ_d = 3e-5 and λ_q = 5e-5 are sentence-transformers'
    documented values. With `relevant_pairs` (every (query id, document id) known relevant), `y_true` holds each
    row's query id and its documents' ids and a candidate known relevant is left out of the softmax, as
    `MultipleNegativesRankingLoss`'s.

    `regularizer_scale` (a non-trained variable, 1 at the start) multiplies both λ: the callback
    `training.SpladeRegularizerWarmup` raises it from 0 to 1 over the first third of the steps, quadratically, as
    sentence-transformers' `SpladeRegularizerWeightSchedulerCallback` does by default (its trainer adds that
    callback whenever it trains a SpladeLoss).

    | input    | shape            | meaning                                                   |
    |----------|------------------|-----------------------------------------------------------|
    | y_true   | [batch]          | unused                                                     |
    |          | [batch, k]       | with `relevant_pairs`: query id, document ids              |
    | y_pred   | [batch, k≥2, V]  | query, positive, optional hard negatives (`SBERT(sparse_encoder, "mnrl")`) |

    Train with `SBERT(sparse_encoder, "mnrl", one_pass=False)` and `model.fit` (examples/train_splade.py).

    Example:
    >>> import numpy as np
    >>> batch = np.array([[[2.0, 0.0], [2.0, 0.0]], [[0.0, 2.0], [0.0, 2.0]]])
    >>> round(float(SpladeLoss(document_regularizer_weight=0.0, query_regularizer_weight=0.0)(np.zeros(2), batch)), 4)
    0.0181
    """

    def __init__(
        self,
        document_regularizer_weight=3e-5,
        query_regularizer_weight=5e-5,
        scale=1.0,
        relevant_pairs=None,
        name="splade_loss",
        **kwargs,
    ):
        super().__init__(name=name, **kwargs)
        for label, value in (("document_regularizer_weight", document_regularizer_weight),
                             ("query_regularizer_weight", query_regularizer_weight), ("scale", scale)):  # fmt: skip
            if isinstance(value, bool) or not isinstance(value, (int, float)) or value < 0 or value != value:
                raise ValueError(f"SpladeLoss: {label} must be a number ≥ 0, got {value!r}")
        self.document_regularizer_weight = float(document_regularizer_weight)
        self.query_regularizer_weight = float(query_regularizer_weight)
        self.scale = float(scale)
        self.relevant_pairs = None if relevant_pairs is None else [list(pair) for pair in relevant_pairs]
        self._known = None if relevant_pairs is None else relevant_keys(relevant_pairs)
        self.regularizer_scale = keras.Variable(1.0, dtype="float32", trainable=False, name="regularizer_scale")

    def call(self, y_true, y_pred):
        columns = unstack_embeddings(y_pred, 2, "SpladeLoss")
        if self._known is not None:
            ranking = multiple_negatives_ranking_loss(y_pred, self.scale, ids=y_true, known=self._known, cosine=False)
        else:
            ranking = multiple_negatives_ranking_loss(y_pred, self.scale, cosine=False)
        documents = ops.concatenate(columns[1:], axis=0)
        regularizers = self.query_regularizer_weight * flops(columns[0])
        regularizers = regularizers + self.document_regularizer_weight * flops(documents)
        return ranking + ops.cast(self.regularizer_scale, regularizers.dtype) * regularizers

    def get_config(self):
        return {
            **super().get_config(),
            "document_regularizer_weight": self.document_regularizer_weight,
            "query_regularizer_weight": self.query_regularizer_weight,
            "scale": self.scale,
            "relevant_pairs": self.relevant_pairs,
        }
