"""MultipleNegativesRankingLoss: each anchor must pick its positive among the batch."""

import keras
import numpy as np
from keras import ops

from keras_sentemb.losses.cross_replica import gather_across_replicas
from keras_sentemb.losses.pair_geometry import l2_normalize, unstack_embeddings

# ids live in y_true, which Keras hands over as float32: exact below 2**24
MAX_ID = 2**24


def relevant_keys(relevant_pairs):
    """The sorted int64 keys anchor·2²⁴ + document of (anchor id, document id) pairs known relevant."""
    pairs = np.asarray(relevant_pairs, dtype=np.int64).reshape(-1, 2)
    if not len(pairs):
        raise ValueError("relevant_pairs holds no (anchor id, document id) pair")
    if pairs.min() < 0 or pairs.max() >= MAX_ID:
        raise ValueError(f"relevant_pairs ids must lie in [0, {MAX_ID}), got {pairs.min()} … {pairs.max()}")
    return np.unique(pairs[:, 0] * MAX_ID + pairs[:, 1])


def multiple_negatives_ranking_loss(
    embeddings, scale=20.0, groups=None, ids=None, known=None, cosine=True, similarity=None
):
    """Cross-entropy of softmax_j(scale·cos(a_i, c_j)) at j = i, per anchor (with `cosine=False`, of the dot products
    scale·a_i·c_j: sparse vectors, whose length is their weight; with `similarity`, of scale·similarity(a, c), a
    function of the anchors [batch, …] and the candidates [candidates, …] to scores [batch, candidates]: MaxSim of
    token vectors, `maxsim_ranking_loss`).

    `embeddings` [batch, k, d]: column 0 anchors a, column 1 positives p, further columns
    hard negatives; the candidates c are all positives and hard negatives of the batch.
    `groups` [batch] (optional): rows of one group share their anchor (one query with several
    relevant documents): another row's positive is then no negative for it, and is left out
    of its softmax. `ids` [batch, k] with `known` (optional): each row's anchor id then the ids of
    its k − 1 documents, and the sorted keys of the (anchor, document) pairs known relevant
    (`relevant_keys`): a candidate known relevant to a row's anchor, other than its own positive,
    is left out of that row's softmax (a false negative: a document relevant to two queries of
    the batch, or one query twice). Under tf.distribute the candidates (and groups, ids) are
    gathered from every replica (the global batch), so R replicas of batch B/R train as one
    device with batch B.

    Returns: [batch] cross-entropies (of this replica's anchors).
    """
    columns = unstack_embeddings(embeddings, 2, "multiple_negatives_ranking_loss")
    normalized = l2_normalize if cosine else (lambda x: x)
    anchors = normalized(columns[0])
    extra = ()
    if groups is not None:
        extra = (ops.cast(ops.reshape(groups, [-1]), "float32"),)
    elif ids is not None:
        ids = ops.reshape(ops.cast(ids, "float32"), [ops.shape(anchors)[0], len(columns)])
        extra = tuple(ids[:, column] for column in range(1, len(columns)))
    gathered, offset = gather_across_replicas(*columns[1:], *extra)
    candidate_columns = list(gathered[: len(columns) - 1])
    candidates = normalized(ops.concatenate(candidate_columns, axis=0))
    if similarity is None:
        logits = scale * ops.matmul(anchors, ops.transpose(candidates))
    else:
        logits = scale * similarity(anchors, candidates)
    rows = ops.shape(anchors)[0]
    targets = offset + ops.arange(rows)
    not_own = ops.not_equal(ops.expand_dims(targets, 1), ops.expand_dims(ops.arange(ops.shape(candidates)[0]), 0))
    if groups is not None:
        own_groups, all_groups = extra[0], gathered[-1]
        # positives of other rows in the same group: not negatives (−∞); hard negatives stay
        same = ops.equal(ops.expand_dims(own_groups, 1), ops.expand_dims(all_groups, 0))
        hard = ops.zeros([rows, ops.shape(candidates)[0] - ops.shape(all_groups)[0]], dtype="bool")
        masked = ops.logical_and(ops.concatenate([same, hard], axis=1), not_own)
        logits = ops.where(masked, -1e9, logits)
    elif ids is not None:
        anchor_ids = ops.cast(ids[:, 0], "int64")
        candidate_ids = ops.cast(ops.concatenate(list(gathered[len(columns) - 1 :]), axis=0), "int64")
        keys = ops.expand_dims(anchor_ids, 1) * MAX_ID + ops.expand_dims(candidate_ids, 0)
        known = ops.convert_to_tensor(known, dtype="int64")
        flat = ops.reshape(keys, [-1])
        found = ops.take(known, ops.minimum(ops.searchsorted(known, flat), ops.shape(known)[0] - 1))
        relevant = ops.reshape(ops.equal(found, flat), ops.shape(keys))
        logits = ops.where(ops.logical_and(relevant, not_own), -1e9, logits)
    return keras.losses.sparse_categorical_crossentropy(targets, logits, from_logits=True)


@keras.saving.register_keras_serializable(package="keras_sentemb")
class MultipleNegativesRankingLoss(keras.losses.Loss):
    """L = −mean_i log [exp(s·cos(a_i, p_i)) / Σ_j exp(s·cos(a_i, c_j))], s = 20, where the
    candidates c_j are every positive (and hard negative) in the batch: the other pairs'
    positives serve as negatives for free.

    | input    | shape              | meaning                                        |
    |----------|--------------------|------------------------------------------------|
    | y_true   | [batch]            | unused; with `same_anchor_groups`, group ids   |
    |          | [batch, k]         | with `relevant_pairs`: anchor id, document ids |
    | y_pred   | [batch, k≥2, dim]  | anchor, positive, optional hard negatives      |

    Larger batches give more negatives; under `tf.distribute` the candidates come from
    the global batch (all replicas), not one replica's slice. With `same_anchor_groups=True`,
    `y_true` holds a group id per row (e.g. the query's index when one query has several
    relevant documents): a row's softmax leaves out the positives of other rows of its group,
    which are no negatives for it. With `relevant_pairs` ((anchor id, document id) pairs known
    relevant, e.g. every qrel of the training split), `y_true` holds each row's anchor id and its
    documents' ids: a candidate known relevant to a row's anchor is left out of its softmax, the
    false negatives of in-batch training on collections where a document answers many queries
    (NFCorpus: 42 relevant documents a query; sentence-transformers' GISTEmbed and
    NV-Retriever filter them with a model instead). Relatives: `TripletLoss` (one negative, hinge),
    `CoSENTLoss` (graded scores). Reference: Henderson et al. 2017, "Efficient Natural
    Language Response Suggestion for Smart Reply"; sentence-transformers' MNRL.

    Example:
    >>> import numpy as np
    >>> e = np.array([[[1.0, 0.0], [1.0, 0.0]], [[0.0, 1.0], [0.0, 1.0]]])
    >>> round(float(MultipleNegativesRankingLoss()(np.zeros(2), e)), 6)   # log(1 + e^-20)
    0.0
    """

    def __init__(
        self,
        scale=20.0,
        same_anchor_groups=False,
        relevant_pairs=None,
        name="multiple_negatives_ranking_loss",
        **kwargs,
    ):
        super().__init__(name=name, **kwargs)
        if same_anchor_groups and relevant_pairs is not None:
            raise ValueError("same_anchor_groups and relevant_pairs both read y_true: pass one of them")
        self.scale = float(scale)
        self.same_anchor_groups = bool(same_anchor_groups)
        self.relevant_pairs = None if relevant_pairs is None else np.asarray(relevant_pairs, np.int64).reshape(-1, 2)
        self._known = None if relevant_pairs is None else relevant_keys(self.relevant_pairs)

    def call(self, y_true, y_pred):
        if self._known is not None:
            return multiple_negatives_ranking_loss(y_pred, self.scale, ids=y_true, known=self._known)
        return multiple_negatives_ranking_loss(y_pred, self.scale, y_true if self.same_anchor_groups else None)

    def get_config(self):
        pairs = None if self.relevant_pairs is None else self.relevant_pairs.tolist()
        return {
            **super().get_config(),
            "scale": self.scale,
            "same_anchor_groups": self.same_anchor_groups,
            "relevant_pairs": pairs,
        }
