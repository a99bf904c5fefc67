"""CodeSimilarityLoss equals its formula in NumPy, and training with it makes Hamming
distances follow the teacher's cosine similarities."""

import keras
import numpy as np

from keras_sentemb import losses
from keras_sentemb.layers import SemanticHashing
from keras_sentemb.retrieval import hamming_distances

RNG = np.random.default_rng(0)
TEACHER = RNG.normal(size=(6, 5)).astype("float32")
CODES = RNG.uniform(0.05, 0.95, size=(6, 16)).astype("float32")


def numpy_reference(teacher, codes, rank_weight, temperature):
    t = teacher / np.linalg.norm(teacher, axis=1, keepdims=True)
    s = 2 * codes - 1
    code_sim, cosine = s @ s.T / s.shape[1], t @ t.T
    loss = np.mean((code_sim - cosine) ** 2)
    kl = []
    for i in range(len(t)):
        others = [j for j in range(len(t)) if j != i]
        p = np.exp(cosine[i, others] / temperature)
        p /= p.sum()
        q = np.exp(code_sim[i, others] / temperature)
        q /= q.sum()
        kl.append(np.sum(p * np.log(p / q)))
    return loss + rank_weight * np.mean(kl)


def test_value_matches_the_numpy_formula_with_and_without_the_ranking_term():
    for weight in (0.0, 0.7):
        got = losses.CodeSimilarityLoss(rank_weight=weight, rank_temperature=0.1)(TEACHER, CODES)
        np.testing.assert_allclose(float(got), numpy_reference(TEACHER, CODES, weight, 0.1), rtol=1e-4)


def test_registered_by_name_and_serializable():
    loss = losses.get("code_similarity", rank_weight=0.5)
    assert losses.get(losses.serialize(loss)).get_config() == loss.get_config()


def test_training_makes_near_teacher_vectors_near_in_hamming_space():
    rng = np.random.default_rng(1)
    centres = rng.normal(size=(4, 8)).astype("float32")
    teacher = np.repeat(centres, 32, axis=0) + 0.1 * rng.normal(size=(128, 8)).astype("float32")
    keras.utils.set_random_seed(0)  # the layer's start too: not whatever ran before in this process
    layer = SemanticHashing(64)
    model = keras.Sequential([keras.Input((8,)), layer])
    same = np.repeat(np.arange(4), 32)
    same = same[:, None] == same[None, :]

    def gap():
        codes = keras.ops.convert_to_numpy(layer.binarize(teacher, packed=True))
        d = hamming_distances(codes, codes)
        return d[~same].mean() - d[same].mean()

    before = gap()
    model.compile(optimizer=keras.optimizers.Adam(1e-2), loss=losses.CodeSimilarityLoss())
    keras.utils.set_random_seed(0)
    model.fit(teacher, teacher, batch_size=128, epochs=30, verbose=0)
    assert gap() > before + 5  # other-cluster codes end up much farther than same-cluster ones
