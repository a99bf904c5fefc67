"""Losses, one per file (a pure function on tensors + a `keras.losses.Loss` wrapper), and
a registry by name: `losses.get("cosine_similarity")`."""

import keras

import keras_sentemb.tensorflow_start  # noqa: F401  (TensorFlow started quietly, before any Keras import)
from keras_sentemb.losses.code_similarity_loss import CodeSimilarityLoss, code_similarity_loss
from keras_sentemb.losses.cosent_loss import CoSENTLoss, cosent_loss
from keras_sentemb.losses.cosine_similarity_loss import CosineSimilarityLoss, cosine_similarity_loss
from keras_sentemb.losses.distillation_loss import DistillationLoss, distillation_loss
from keras_sentemb.losses.loss_registry import BASE_LOSSES, get_loss
from keras_sentemb.losses.matryoshka_loss import MatryoshkaLoss
from keras_sentemb.losses.maxsim_ranking_loss import MaxSimRankingLoss, maxsim_matrix
from keras_sentemb.losses.multiple_negatives_ranking_loss import (
    MultipleNegativesRankingLoss,
    multiple_negatives_ranking_loss,
)
from keras_sentemb.losses.similarity_distribution_loss import (
    SimilarityDistributionLoss,
    similarity_distribution_loss,
)
from keras_sentemb.losses.softmax_pair_loss import SoftmaxPairLoss, softmax_pair_loss
from keras_sentemb.losses.splade_loss import SpladeLoss, flops
from keras_sentemb.losses.sra_loss import SRALoss, sra_loss
from keras_sentemb.losses.triplet_loss import TripletLoss, triplet_loss
from keras_sentemb.losses.whitened_distillation_loss import (
    WhitenedDistillationLoss,
    whitened_distillation_loss,
    whitening_matrix,
)

LOSSES = {**BASE_LOSSES, "matryoshka": MatryoshkaLoss}


def get(identifier, **kwargs):
    """A loss instance from a registered name, a config dict, or a loss (returned as is).

    >>> get("triplet", margin=0.5).margin
    0.5
    >>> get("matryoshka", loss="cosent", dims=(64, 384)).dims
    (64, 384)
    """
    return get_loss(identifier, LOSSES, **kwargs)


def serialize(loss):
    """The loss's config dict, which `get` turns back into an equal loss."""
    return keras.saving.serialize_keras_object(loss)


__all__ = [
    "CoSENTLoss",
    "CodeSimilarityLoss",
    "CosineSimilarityLoss",
    "DistillationLoss",
    "LOSSES",
    "MatryoshkaLoss",
    "MaxSimRankingLoss",
    "MultipleNegativesRankingLoss",
    "SRALoss",
    "SimilarityDistributionLoss",
    "SoftmaxPairLoss",
    "SpladeLoss",
    "TripletLoss",
    "WhitenedDistillationLoss",
    "code_similarity_loss",
    "cosent_loss",
    "cosine_similarity_loss",
    "distillation_loss",
    "flops",
    "get",
    "maxsim_matrix",
    "multiple_negatives_ranking_loss",
    "serialize",
    "similarity_distribution_loss",
    "softmax_pair_loss",
    "sra_loss",
    "triplet_loss",
    "whitened_distillation_loss",
    "whitening_matrix",
]
