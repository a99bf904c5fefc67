"""SRALoss: sentence representation approximation, ½(1 − cos(T_x, S_x)) to a teacher's vector."""

import keras
from keras import ops


def sra_loss(teacher_vectors, student_vectors):
    """Per sentence ½(1 − cos(T_x, S_x)), in [0, 1]: 0 when the student's vector points
    where the teacher's does (lengths do not matter), 1 when it points the opposite way.

    Args:
        teacher_vectors: the teacher's sentence vectors T_x [batch, d].
        student_vectors: the student's vectors S_x [batch, d] (same d).

    Returns: [batch] losses. A zero vector has cosine 0 with everything (loss ½).
    """
    teacher = ops.cast(teacher_vectors, "float32")
    student = ops.cast(student_vectors, "float32")
    teacher = teacher / ops.maximum(ops.norm(teacher, axis=-1, keepdims=True), 1e-12)
    student = student / ops.maximum(ops.norm(student, axis=-1, keepdims=True), 1e-12)
    return 0.5 * (1.0 - ops.sum(teacher * student, axis=-1))


@keras.saving.register_keras_serializable(package="keras_sentemb")
class SRALoss(keras.losses.Loss):
    """L = mean_x ½(1 − cos(T_x, S_x)): a student S learns to point its sentence vectors
    where a teacher T (e.g. MiniLM) points them, on unlabeled sentences (BiLSTM-SRA).

    | input    | shape        | meaning                                          |
    |----------|--------------|--------------------------------------------------|
    | y_true   | [batch, d]   | the teacher's vector of each sentence (cached)   |
    | y_pred   | [batch, d]   | the student's vector (`BiLSTMSRA` output)        |

    Relatives: `DistillationLoss` (matches a cross-encoder's logits, squared error);
    `CosineSimilarityLoss` (cosine of two student vectors against a gold score).

    Example:
    >>> import numpy as np
    >>> float(SRALoss()(np.array([[1.0, 0.0]]), np.array([[0.0, 2.0]])))
    0.5
    """

    def __init__(self, name="sra_loss", **kwargs):
        super().__init__(name=name, **kwargs)

    def call(self, y_true, y_pred):
        return sra_loss(y_true, y_pred)
