"""Each loss equals its formula computed by hand in NumPy, and a few optimizer steps on a
tiny synthetic task move embeddings the way the loss intends."""

import keras
import numpy as np
import pytest

from keras_sentemb import losses

RNG = np.random.default_rng(0)
U, V, N = (RNG.normal(size=(4, 5)).astype("float32") for _ in range(3))
SCORES = np.array([0.0, 2.5, 5.0, 1.0], "float32")


def cos(a, b):
    return (a * b).sum(-1) / np.linalg.norm(a, axis=-1) / np.linalg.norm(b, axis=-1)


def log_softmax(x):
    x = x - x.max(-1, keepdims=True)
    return x - np.log(np.exp(x).sum(-1, keepdims=True))


def test_cosine_similarity_loss_is_mse_to_the_rescaled_score():
    expected = np.mean((cos(U, V) - SCORES / 5.0) ** 2)
    got = losses.CosineSimilarityLoss()(SCORES, np.stack([U, V], 1))
    np.testing.assert_allclose(float(got), expected, rtol=1e-5)
    expected_pm1 = np.mean((cos(U, V) - (SCORES / 5.0 * 2 - 1)) ** 2)
    got_pm1 = losses.CosineSimilarityLoss(target_range=(-1.0, 1.0))(SCORES, np.stack([U, V], 1))
    np.testing.assert_allclose(float(got_pm1), expected_pm1, rtol=1e-5)


def test_softmax_pair_loss_is_cross_entropy_on_logits():
    logits = RNG.normal(size=(4, 3)).astype("float32")
    labels = np.array([0, 2, 1, 2])
    expected = -np.mean(log_softmax(logits)[np.arange(4), labels])
    np.testing.assert_allclose(float(losses.SoftmaxPairLoss()(labels, logits)), expected, rtol=1e-5)


def test_triplet_loss_with_euclidean_and_cosine_distance():
    d_ap, d_an = np.linalg.norm(U - V, axis=1), np.linalg.norm(U - N, axis=1)
    expected = np.mean(np.maximum(d_ap - d_an + 1.0, 0.0))
    triplets = np.stack([U, V, N], 1)
    np.testing.assert_allclose(float(losses.TripletLoss()(np.zeros(4), triplets)), expected, rtol=1e-5)
    expected_cos = np.mean(np.maximum((1 - cos(U, V)) - (1 - cos(U, N)) + 0.3, 0.0))
    got_cos = losses.TripletLoss(margin=0.3, distance="cosine")(np.zeros(4), triplets)
    np.testing.assert_allclose(float(got_cos), expected_cos, rtol=1e-5)


def test_multiple_negatives_ranking_loss_uses_in_batch_and_hard_negatives():
    unit = lambda x: x / np.linalg.norm(x, axis=1, keepdims=True)  # noqa: E731
    logits = 20.0 * unit(U) @ unit(V).T
    expected = -np.mean(log_softmax(logits)[np.arange(4), np.arange(4)])
    got = losses.MultipleNegativesRankingLoss()(np.zeros(4), np.stack([U, V], 1))
    np.testing.assert_allclose(float(got), expected, rtol=1e-5)
    logits_hard = 20.0 * unit(U) @ unit(np.concatenate([V, N])).T
    expected_hard = -np.mean(log_softmax(logits_hard)[np.arange(4), np.arange(4)])
    got_hard = losses.MultipleNegativesRankingLoss()(np.zeros(4), np.stack([U, V, N], 1))
    np.testing.assert_allclose(float(got_hard), expected_hard, rtol=1e-5)


def test_cosent_loss_penalises_every_misordered_pair_of_pairs():
    c = 20.0 * cos(U, V)
    terms = [np.exp(c[j] - c[i]) for i in range(4) for j in range(4) if SCORES[i] > SCORES[j]]
    expected = np.log1p(np.sum(terms))
    got = losses.CoSENTLoss()(SCORES, np.stack([U, V], 1))
    np.testing.assert_allclose(float(got), expected, rtol=1e-5)


def test_registry_gets_by_name_config_and_instance():
    assert isinstance(losses.get("cosine_mse"), losses.CosineSimilarityLoss)
    triplet = losses.get("triplet", margin=0.5, distance="cosine")
    clone = losses.get(losses.serialize(triplet))
    assert (type(clone), clone.margin, clone.distance) == (losses.TripletLoss, 0.5, "cosine")
    assert losses.get(triplet) is triplet
    with pytest.raises(ValueError, match="unknown loss 'hinge'"):
        losses.get("hinge")
    with pytest.raises(TypeError):
        losses.get(3)


def test_losses_reject_unstacked_embeddings():
    with pytest.raises(ValueError, match=r"expects stacked embeddings \[batch, 3, dim\]"):
        losses.TripletLoss()(np.zeros(4), np.stack([U, V], 1))
    with pytest.raises(ValueError, match="distance"):
        losses.TripletLoss(distance="manhattan")


# ---------------------------------------------------------------- a few training steps
def embedding_model(items=6, dim=8, seed=1):
    """Item ids [batch, k] → stacked embeddings [batch, k, dim] from one trainable table."""
    keras.utils.set_random_seed(seed)
    ids = keras.Input((None,), dtype="int32")
    model = keras.Model(ids, keras.layers.Embedding(items, dim)(ids))
    return model


def train(model, loss, ids, y, steps=60, learning_rate=0.1):
    model.compile(optimizer=keras.optimizers.SGD(learning_rate), loss=loss)
    model.fit(ids, y, batch_size=len(ids), epochs=steps, verbose=0, shuffle=False)
    return np.asarray(model(ids))


def test_cosine_similarity_training_pulls_similar_pairs_together_and_pushes_others_apart():
    model = embedding_model()
    ids = np.array([[0, 1], [2, 3], [4, 5]])
    scores = np.array([5.0, 0.0, 5.0], "float32")
    before = np.asarray(model(ids))
    after = train(model, losses.CosineSimilarityLoss(), ids, scores)
    assert cos(after[0, 0], after[0, 1]) > cos(before[0, 0], before[0, 1]) + 0.1
    assert abs(cos(after[1, 0], after[1, 1])) < abs(cos(before[1, 0], before[1, 1])) + 1e-6


def test_cosent_training_orders_cosines_like_the_scores():
    model = embedding_model(seed=2)
    ids = np.array([[0, 1], [2, 3], [4, 5]])
    scores = np.array([1.0, 3.0, 5.0], "float32")
    after = train(model, losses.CoSENTLoss(), ids, scores, learning_rate=0.05)
    cosines = [cos(after[i, 0], after[i, 1]) for i in range(3)]
    assert cosines[0] < cosines[1] < cosines[2]


def test_triplet_training_brings_positive_closer_than_negative_by_the_margin():
    model = embedding_model(seed=3)
    ids = np.array([[0, 1, 2], [3, 4, 5]])
    after = train(model, losses.TripletLoss(margin=1.0), ids, np.zeros(2, "float32"))
    for a, p, n in after:
        assert np.linalg.norm(a - n) - np.linalg.norm(a - p) >= 0.9


def test_mnrl_training_makes_each_anchor_rank_its_positive_first():
    model = embedding_model(items=8, seed=4)
    ids = np.array([[0, 1], [2, 3], [4, 5], [6, 7]])
    after = train(model, losses.MultipleNegativesRankingLoss(), ids, np.zeros(4, "float32"))
    anchors, positives = after[:, 0], after[:, 1]
    similarity = (anchors / np.linalg.norm(anchors, axis=1, keepdims=True)) @ (
        positives / np.linalg.norm(positives, axis=1, keepdims=True)
    ).T
    assert similarity.argmax(axis=1).tolist() == [0, 1, 2, 3]


def test_softmax_pair_training_learns_the_labels():
    keras.utils.set_random_seed(5)
    ids = keras.Input((2,), dtype="int32")
    stacked = keras.layers.Embedding(6, 8)(ids)
    logits = keras.layers.Dense(3)(keras.layers.Flatten()(stacked))
    model = keras.Model(ids, logits)
    pairs, labels = np.array([[0, 1], [2, 3], [4, 5]]), np.array([0, 1, 2])
    train(model, losses.SoftmaxPairLoss(), pairs, labels, steps=80)
    assert np.asarray(model(pairs)).argmax(1).tolist() == [0, 1, 2]


def test_distillation_loss_mixes_teacher_and_label_terms_like_numpy():
    from keras_sentemb.losses import DistillationLoss

    student = np.array([[0.2], [0.9], [0.4]], np.float32)
    targets = np.array([[0.0, 0.5], [1.0, 0.7], [0.5, 0.5]], np.float32)  # [label, teacher]
    for alpha in (0.0, 0.3, 1.0):
        expected = np.mean(
            alpha * (student[:, 0] - targets[:, 1]) ** 2 + (1 - alpha) * (student[:, 0] - targets[:, 0]) ** 2
        )
        assert np.isclose(float(DistillationLoss(alpha)(targets, student)), expected, atol=1e-6)
    logits = np.array([[2.0, 0.0], [0.0, 1.0]], np.float32)
    targets = np.array([[1, 1.5, 0.5], [1, 0.0, 2.0]], np.float32)  # [class, T_0, T_1]
    log_softmax = logits - np.log(np.exp(logits).sum(1, keepdims=True))
    expected = np.mean(0.5 * ((logits - targets[:, 1:]) ** 2).sum(1) + 0.5 * -log_softmax[:, 1])
    assert np.isclose(float(DistillationLoss(0.5, "classification")(targets, logits)), expected, atol=1e-5)
    with pytest.raises(ValueError, match="alpha must be in"):
        DistillationLoss(1.5)
