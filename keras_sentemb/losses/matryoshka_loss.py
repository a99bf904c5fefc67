"""MatryoshkaLoss: one embedding (or binary code) whose prefixes are each a good embedding."""

import keras
from keras import ops

from keras_sentemb.losses.loss_registry import get_loss


def matryoshka_dims(dims):
    """`dims` as a strictly increasing tuple of positive ints (checked)."""
    try:
        dims = tuple(int(d) for d in dims)
    except (TypeError, ValueError):
        raise TypeError(f"dims must be a sequence of ints, got {dims!r}") from None
    if not dims or any(d <= 0 for d in dims) or any(a >= b for a, b in zip(dims, dims[1:])):
        raise ValueError(f"dims must be strictly increasing positive ints, got {dims!r}")
    return dims


def matryoshka_weights(weights, dims, name="weights"):
    """One weight a prefix width of `dims` (default 1 each), as a tuple of floats (checked:
    as many as `dims`, non-negative, not all 0)."""
    checked = (1.0,) * len(dims) if weights is None else tuple(float(w) for w in weights)
    if len(checked) != len(dims) or any(w < 0 for w in checked) or not any(checked):
        raise ValueError(f"{name} must be {len(dims)} non-negative numbers, not all 0, got {weights!r}")
    return checked


@keras.saving.register_keras_serializable(package="keras_sentemb")
class MatryoshkaLoss(keras.losses.Loss):
    """L = Σ_m w_m · L_inner(y_true, y_pred[..., :m]) over the prefix widths m of `dims`.

    Wraps any loss of this package whose prediction has the embedding on its last axis
    (`CosineSimilarityLoss`, `CoSENTLoss`, `MultipleNegativesRankingLoss`, `DistillationLoss`,
    `CodeSimilarityLoss` on relaxed codes, ...), so that the first m features (or bits) of the
    output are themselves an embedding (code) trained with that loss: truncating at serving
    time (`encode(..., truncate_dim=m)`, `hash(..., bits=m)`) costs little. The inner loss sees
    a prefix exactly as it would see a narrower model's output (it normalises, or divides by
    the code length, itself). `weights` default to 1 for every width (sentence-transformers'
    `MatryoshkaLoss` default); the sum is not renormalised.

    | input    | shape                 | meaning                                      |
    |----------|-----------------------|----------------------------------------------|
    | y_true   | what the inner takes  | passed through unchanged                     |
    | y_pred   | [..., D], D ≥ max dims | the full embedding / relaxed code           |

    Reference: Kusupati et al. 2022, "Matryoshka Representation Learning";
    sentence-transformers' `MatryoshkaLoss`.

    Example:
    >>> import numpy as np
    >>> from keras_sentemb.losses import CosineSimilarityLoss
    >>> u_v = np.array([[[1.0, 0.0, 0.0, 1.0], [1.0, 0.0, 0.0, -1.0]]])  # cos 0 in full, 1 at width 2
    >>> loss = MatryoshkaLoss(CosineSimilarityLoss(), dims=(2, 4))
    >>> round(float(loss(np.array([5.0]), u_v)), 4)   # score 5 → target cosine 1: (1 − 1)² + (0 − 1)²
    1.0
    """

    def __init__(self, loss, dims, weights=None, name="matryoshka_loss", **kwargs):
        super().__init__(name=name, **kwargs)
        self.loss = get_loss(loss)  # a Loss, its config, or a name of `BASE_LOSSES`
        self.dims = matryoshka_dims(dims)
        self.weights = matryoshka_weights(weights, self.dims)

    def call(self, y_true, y_pred):
        width = y_pred.shape[-1]
        if width is not None and self.dims[-1] > width:
            raise ValueError(f"the widest prefix {self.dims[-1]} is wider than the prediction ({width})")
        total = 0.0
        for dim, weight in zip(self.dims, self.weights):
            if weight:
                total = total + weight * ops.convert_to_tensor(self.loss.call(y_true, y_pred[..., :dim]))
        return total

    def get_config(self):
        return {
            **super().get_config(),
            "loss": keras.saving.serialize_keras_object(self.loss),
            "dims": list(self.dims),
            "weights": list(self.weights),
        }
