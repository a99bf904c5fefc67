"""SoftmaxPairLoss: cross-entropy on the classifier logits of a sentence pair."""

import keras
from keras import ops


def softmax_pair_loss(labels, logits):
    """−log softmax(logits)[label] per pair; `logits` = W·[u, v, |u−v|] from PairFeatureHead.

    Returns: [batch] cross-entropies.
    """
    labels = ops.cast(ops.reshape(labels, (-1,)), "int32")
    return keras.losses.sparse_categorical_crossentropy(labels, logits, from_logits=True)


@keras.saving.register_keras_serializable(package="keras_sentemb")
class SoftmaxPairLoss(keras.losses.Loss):
    """L = −mean_i log softmax(W·[u_i, v_i, |u_i−v_i|])[y_i]: SBERT's classification
    objective (trained on NLI). The classifier W is `PairFeatureHead`, part of
    `SBERT(objective="classification")`, so this loss sees only its logits.

    | input    | shape                 | meaning                      |
    |----------|-----------------------|------------------------------|
    | y_true   | [batch] int           | class index (e.g. NLI label) |
    | y_pred   | [batch, num_classes]  | logits                       |

    Relatives: the DSE/DNT classifiers (other pair features, other losses).
    Reference: Reimers & Gurevych 2019, §3 "Classification Objective Function".

    Example:
    >>> import numpy as np
    >>> round(float(SoftmaxPairLoss()(np.array([0]), np.array([[0.0, 0.0]]))), 4)
    0.6931
    """

    def __init__(self, name="softmax_pair_loss", **kwargs):
        super().__init__(name=name, **kwargs)

    def call(self, y_true, y_pred):
        return softmax_pair_loss(y_true, y_pred)
