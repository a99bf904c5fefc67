"""CodeSimilarityLoss: teach binary codes to keep the float embeddings' cosine similarities."""

import keras
from keras import ops

from keras_sentemb.losses.cross_replica import gather_across_replicas
from keras_sentemb.losses.pair_geometry import l2_normalize


def code_similarity_rows(teacher_embeddings, relaxed_codes, rank_weight=1.0, rank_temperature=0.05):
    """The loss of each row i of the batch ([batch]); `code_similarity_loss` is their mean.

    With s_i = 2 h_i − 1 ∈ (−1, 1)^b the relaxed code of sentence i, and t_i its teacher
    embedding, over the columns j of the batch:

        code similarity   Ŝ_ij = s_i · s_j / b        (= 1 − 2·Hamming/b for hard codes)
        teacher cosine    C_ij = t_i · t_j / (‖t_i‖ ‖t_j‖)
        L_i = mean_j (Ŝ_ij − C_ij)²
              + w · KL(softmax_{j≠i}(C_ij / T) ‖ softmax_{j≠i}(Ŝ_ij / T))

    Under tf.distribute the rows are this replica's sentences and the columns those of
    the global batch (gathered from every replica), so the mean of the rows over all
    replicas is the loss of the global batch.
    """
    teacher = l2_normalize(ops.cast(teacher_embeddings, "float32"))
    signs = 2.0 * ops.cast(relaxed_codes, "float32") - 1.0
    (all_teacher, all_signs), offset = gather_across_replicas(teacher, signs)
    bits = ops.cast(ops.shape(signs)[-1], "float32")
    code_sim = ops.matmul(signs, ops.transpose(all_signs)) / bits
    cosine = ops.matmul(teacher, ops.transpose(all_teacher))
    rows = ops.mean(ops.square(code_sim - cosine), axis=-1)
    if rank_weight:
        own_column = offset + ops.arange(ops.shape(signs)[0])
        diagonal = ops.one_hot(own_column, ops.shape(all_signs)[0], dtype="float32") * 1e9
        target = ops.softmax(cosine / rank_temperature - diagonal, axis=-1)
        log_pred = ops.log_softmax(code_sim / rank_temperature - diagonal, axis=-1)
        log_target = ops.log(ops.maximum(target, 1e-12))
        rows = rows + rank_weight * ops.sum(target * (log_target - log_pred), axis=-1)
    return rows


def code_similarity_loss(teacher_embeddings, relaxed_codes, rank_weight=1.0, rank_temperature=0.05):
    """Similarity-preserving distillation from float embeddings to codes (a scalar).

    Over the B × B pairs of the batch (see `code_similarity_rows` for Ŝ and C):

        L = mean_ij (Ŝ_ij − C_ij)²
            + w · mean_i KL(softmax_{j≠i}(C_ij / T) ‖ softmax_{j≠i}(Ŝ_ij / T))

    The first term fits every similarity; the second (weight w = `rank_weight`,
    temperature T = `rank_temperature`) matches each row's neighbour distribution, which
    weights the nearest neighbours most — the ones a top-k search returns.
    """
    return ops.mean(code_similarity_rows(teacher_embeddings, relaxed_codes, rank_weight, rank_temperature))


@keras.saving.register_keras_serializable(package="keras_sentemb")
class CodeSimilarityLoss(keras.losses.Loss):
    """Distils a frozen encoder's cosine similarities into `SemanticHashing` codes.

    L = mean_ij (s_i·s_j/b − cos(t_i, t_j))² + w · mean_i KL(p_i ‖ q_i), with s = 2h − 1
    the relaxed ±1 codes, p_i = softmax_j(cos(t_i, t_j)/T), q_i = softmax_j(s_i·s_j/(bT)),
    j ≠ i over the batch (see `code_similarity_loss`). Hard codes then rank by Hamming
    distance as the teacher ranks by cosine.

    | input    | shape          | meaning                                          |
    |----------|----------------|--------------------------------------------------|
    | y_true   | [batch, d]     | the teacher's (float) sentence embeddings        |
    | y_pred   | [batch, bits]  | relaxed codes h ∈ (0, 1) from `SemanticHashing`  |

    One number for the whole batch (it compares every pair of the batch), so batches
    should be large (≥ 256). Relatives: sign-thresholding the embedding
    (`retrieval.sign_threshold_codes`) needs no training; `CosineSimilarityLoss` fits
    cosines to gold scores. Reference: similarity-preserving hashing (Weiss et al. 2008,
    "Spectral Hashing"; Kiros & Chan 2018 for the relaxed σ(LN(·)/τ) codes).

    Example:
    >>> import numpy as np
    >>> t = np.array([[1.0, 0.0], [0.0, 1.0]])
    >>> h = np.array([[1.0, 1.0, 1.0, 1.0], [1.0, 1.0, 0.0, 0.0]])  # code cosines 1 and 0
    >>> round(float(CodeSimilarityLoss(rank_weight=0)(t, h)), 6)
    0.0
    """

    def __init__(self, rank_weight=1.0, rank_temperature=0.05, name="code_similarity_loss", **kwargs):
        super().__init__(name=name, **kwargs)
        if rank_weight < 0 or rank_temperature <= 0:
            raise ValueError(
                f"need rank_weight ≥ 0 and rank_temperature > 0, got {rank_weight!r}, {rank_temperature!r}"
            )
        self.rank_weight = float(rank_weight)
        self.rank_temperature = float(rank_temperature)

    def call(self, y_true, y_pred):
        # One value per row (their mean is L): Keras then averages them, and under
        # tf.distribute scales each replica's share as for any per-example loss.
        return code_similarity_rows(y_true, y_pred, self.rank_weight, self.rank_temperature)

    def get_config(self):
        return {**super().get_config(), "rank_weight": self.rank_weight, "rank_temperature": self.rank_temperature}
