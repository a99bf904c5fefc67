"""TripletLoss: pull the positive closer to the anchor than the negative, by a margin."""

import keras
from keras import ops

from keras_sentemb.losses.pair_geometry import pairwise_cosine, unstack_embeddings

DISTANCES = ("euclidean", "cosine")


def triplet_distance(x, y, distance):
    if distance == "euclidean":
        return ops.sqrt(ops.maximum(ops.sum(ops.square(x - y), axis=-1), 1e-12))
    return 1.0 - pairwise_cosine(x, y)


def triplet_loss(embeddings, margin=1.0, distance="euclidean"):
    """max(d(a, p) − d(a, n) + margin, 0) per triplet; `embeddings` [batch, 3, d] = (a, p, n).

    Returns: [batch] hinge values.
    """
    if distance not in DISTANCES:
        raise ValueError(f"distance must be one of {DISTANCES}, got {distance!r}")
    anchor, positive, negative = unstack_embeddings(embeddings, 3, "triplet_loss")[:3]
    return ops.relu(
        triplet_distance(anchor, positive, distance) - triplet_distance(anchor, negative, distance) + margin
    )


@keras.saving.register_keras_serializable(package="keras_sentemb")
class TripletLoss(keras.losses.Loss):
    """L = mean_i max(‖a_i − p_i‖ − ‖a_i − n_i‖ + ε, 0) with Euclidean distance and ε = 1
    (SBERT's triplet objective); `distance="cosine"` uses 1 − cos instead.

    | input    | shape            | meaning                                  |
    |----------|------------------|------------------------------------------|
    | y_true   | [batch] (unused) | anything; pipelines pass zeros           |
    | y_pred   | [batch, 3, dim]  | anchor, positive, negative stacked       |

    Relatives: `MultipleNegativesRankingLoss` with hard negatives (softmax over the batch
    instead of one hinge per triplet).
    Reference: Reimers & Gurevych 2019, §3 "Triplet Objective Function"; Schroff et al. 2015.

    Example:
    >>> import numpy as np
    >>> t = np.array([[[0.0, 0.0], [0.0, 0.5], [0.0, 2.0]]])   # d(a,p)=0.5, d(a,n)=2
    >>> float(TripletLoss()(np.zeros(1), t))
    0.0
    """

    def __init__(self, margin=1.0, distance="euclidean", name="triplet_loss", **kwargs):
        super().__init__(name=name, **kwargs)
        if distance not in DISTANCES:
            raise ValueError(f"distance must be one of {DISTANCES}, got {distance!r}")
        self.margin = float(margin)
        self.distance = distance

    def call(self, y_true, y_pred):
        return triplet_loss(y_pred, self.margin, self.distance)

    def get_config(self):
        return {**super().get_config(), "margin": self.margin, "distance": self.distance}
