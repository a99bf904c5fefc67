"""The losses by name (all but the wrappers, which take one of these): `get_loss("cosent")`."""

import keras

from keras_sentemb.losses.code_similarity_loss import CodeSimilarityLoss
from keras_sentemb.losses.cosent_loss import CoSENTLoss
from keras_sentemb.losses.cosine_similarity_loss import CosineSimilarityLoss
from keras_sentemb.losses.distillation_loss import DistillationLoss
from keras_sentemb.losses.maxsim_ranking_loss import MaxSimRankingLoss
from keras_sentemb.losses.multiple_negatives_ranking_loss import (
    MultipleNegativesRankingLoss,
)
from keras_sentemb.losses.similarity_distribution_loss import (
    SimilarityDistributionLoss,
)
from keras_sentemb.losses.softmax_pair_loss import SoftmaxPairLoss
from keras_sentemb.losses.splade_loss import SpladeLoss
from keras_sentemb.losses.sra_loss import SRALoss
from keras_sentemb.losses.triplet_loss import TripletLoss
from keras_sentemb.losses.whitened_distillation_loss import (
    WhitenedDistillationLoss,
)

BASE_LOSSES = {
    "softmax_pair": SoftmaxPairLoss,
    "cosine_similarity": CosineSimilarityLoss,
    "cosine_mse": CosineSimilarityLoss,
    "triplet": TripletLoss,
    "multiple_negatives_ranking": MultipleNegativesRankingLoss,
    "mnrl": MultipleNegativesRankingLoss,
    "cosent": CoSENTLoss,
    "code_similarity": CodeSimilarityLoss,
    "distillation": DistillationLoss,
    "sra": SRALoss,
    "similarity_distribution": SimilarityDistributionLoss,
    "whitened_distillation": WhitenedDistillationLoss,
    "splade": SpladeLoss,
    "maxsim_ranking": MaxSimRankingLoss,
}


def get_loss(identifier, names=None, **kwargs):
    """A loss instance from a name of `names` (default `BASE_LOSSES`), a config dict, or a loss
    (returned as is).

    >>> get_loss("triplet", margin=0.5).margin
    0.5
    """
    names = BASE_LOSSES if names is None else names
    if isinstance(identifier, keras.losses.Loss):
        return identifier
    if isinstance(identifier, dict):
        return keras.saving.deserialize_keras_object(identifier)
    if isinstance(identifier, str):
        if identifier not in names:
            raise ValueError(f"unknown loss {identifier!r}; registered: {sorted(names)}")
        return names[identifier](**kwargs)
    raise TypeError(f"expected a loss name, config or Loss, got {type(identifier).__name__}")
