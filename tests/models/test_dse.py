"""DSE on a tiny random BERT: f against NumPy, the α extremes, score_matrix, rank, bad input."""

import os

import keras
import numpy as np
import pytest
import tensorflow as tf

from keras_sentemb.data.examples import ScoredPairs
from keras_sentemb.data.pipelines import examples_dataset
from keras_sentemb.losses import DistillationLoss, distillation_loss
from keras_sentemb.models import DSE
from keras_sentemb.models import dse as dse_module
from tests.conftest import make_tiny_encoder
from tests.layer_test_case import run_model_test

FIRST = ["the cat sat on the mat", "a dog ran", "hello", "rain and storm", "the oven was hot ."]
SECOND = ["a cat sat", "the dog ran fast", "hello world", "storm", "bread"]


def make_dse(num_labels=1, alpha=0.5, freeze_encoder=False, seed=0, cosine_weight=0.0, ranking_weight=0.0):
    encoder = make_tiny_encoder(
        seed=seed, pooling="mean", layer_indices=(-2, -1), exclude_special_tokens=True, normalize=False
    )
    dse = DSE(
        encoder,
        num_labels=num_labels,
        alpha=alpha,
        freeze_encoder=freeze_encoder,
        cosine_weight=cosine_weight,
        ranking_weight=ranking_weight,
    )
    kernel = dse.head.output_layer.kernel  # zeros at the start; make f non-trivial
    kernel.assign(np.random.default_rng(seed).normal(scale=0.1, size=kernel.shape))
    return dse


def numpy_f(dse, u, v):
    kernel = dse.head.output_layer.kernel.numpy()
    bias = dse.head.output_layer.bias.numpy()
    features = np.concatenate([u, v, u * v, np.abs(u - v)], axis=-1)
    return features @ kernel + bias


def random_embeddings(rows, dse, seed):
    return np.random.default_rng(seed).normal(size=(rows, dse.embedding_dim)).astype(np.float32)


@pytest.mark.parametrize("num_labels", [1, 3])
def test_f_matches_a_numpy_reference(num_labels):
    dse = make_dse(num_labels)
    u, v = random_embeddings(7, dse, 1), random_embeddings(7, dse, 2)
    expected = numpy_f(dse, u, v)
    np.testing.assert_allclose(dse.score(u, v), expected[:, 0] if num_labels == 1 else expected, rtol=1e-5, atol=1e-5)


def test_student_embeds_both_sentences_with_one_shared_encoder():
    dse = make_dse()
    assert dse.embedding_dim == 32  # two layers × 16 dims
    vectors = dse.embed(FIRST + SECOND)
    np.testing.assert_allclose(
        dse.predict_pairs(FIRST, SECOND), numpy_f(dse, vectors[:5], vectors[5:])[:, 0], rtol=1e-4, atol=1e-5
    )


@pytest.mark.parametrize("num_labels", [1, 2])
def test_score_matrix_equals_the_naive_double_loop_in_bounded_blocks(num_labels, monkeypatch):
    dse = make_dse(num_labels)
    U, V = random_embeddings(9, dse, 3), random_embeddings(13, dse, 4)
    blocks = []
    original = dse_module.pair_scores_block

    def recording_block(U, V, row_start, col_start, rows, cols, weights, unit=False):
        blocks.append((rows, cols))
        return original(U, V, row_start, col_start, rows, cols, weights, unit)

    monkeypatch.setattr(dse_module, "pair_scores_block", recording_block)
    matrix = dse.score_matrix(U, V, chunk=20)
    naive = np.array([[dse.score(U[i : i + 1], V[j : j + 1])[0] for j in range(13)] for i in range(9)])
    np.testing.assert_allclose(matrix, naive, rtol=1e-4, atol=1e-4)
    assert blocks and max(r * c for r, c in blocks) <= 20
    assert sum(r * c for r, c in blocks) == 9 * 13  # every pair scored exactly once


def gradient_function(dse):
    """(α, targets [label, teacher]) → d loss / d weights on one batch of the five pairs."""
    data = examples_dataset(
        ScoredPairs(FIRST, SECOND, [0.0] * 5), dse.tokenizer, batch_size=8, shuffle=False, bucketing=False
    )
    features, _ = next(iter(data))

    @tf.function
    def gradients(alpha, targets):
        with tf.GradientTape() as tape:
            losses = distillation_loss(targets, dse(features, training=True), alpha)
            loss = tf.reduce_mean(losses)
        return tape.gradient(loss, dse.trainable_weights)

    def call(alpha, targets):
        targets = tf.constant(targets, tf.float32)
        return [tf.convert_to_tensor(g).numpy() for g in gradients(tf.constant(alpha), targets)]

    return call


def test_alpha_one_ignores_the_labels_and_alpha_zero_ignores_the_teacher():
    gradients = gradient_function(make_dse())
    rng = np.random.default_rng(0)
    labels_a, labels_b, teacher_a, teacher_b = rng.uniform(size=(4, 5))

    def same_gradients(alpha, first, second):
        g1 = gradients(alpha, np.column_stack(first))
        g2 = gradients(alpha, np.column_stack(second))
        assert any(np.abs(g).max() > 0 for g in g1)
        return all(np.array_equal(a, b) for a, b in zip(g1, g2))

    assert same_gradients(1.0, (labels_a, teacher_a), (labels_b, teacher_a))
    assert same_gradients(0.0, (labels_a, teacher_a), (labels_a, teacher_b))
    # with 0 < α < 1 both terms matter
    assert not same_gradients(0.5, (labels_a, teacher_a), (labels_b, teacher_a))
    assert not same_gradients(0.5, (labels_a, teacher_a), (labels_a, teacher_b))


def test_the_cosine_weight_trains_the_cosine_of_the_embeddings_toward_the_score():
    """β > 0: in training the output gains cos(u, v) (inference keeps the n logits), and
    fitting pulls the cosine of each pair's embeddings toward its score y."""
    dse = make_dse(cosine_weight=1.0, seed=3)
    pairs = ScoredPairs(FIRST, SECOND, [0.0] * 5)
    features, _ = next(iter(examples_dataset(pairs, dse.tokenizer, batch_size=8, shuffle=False, bucketing=False)))
    trained_output = dse(features, training=True).numpy()
    assert trained_output.shape == (5, 2) and dse(features).shape == (5, 1)
    unit = dse.encode(FIRST + SECOND)
    np.testing.assert_allclose(trained_output[:, 1], np.sum(unit[:5] * unit[5:], axis=1), atol=1e-5)

    targets = np.column_stack([[1.0, 0.0, 1.0, 0.0, 1.0], [0.5] * 5]).astype(np.float32)
    dse.compile(optimizer=keras.optimizers.Adam(1e-2))

    def cosine_error():
        unit = dse.encode(FIRST + SECOND)
        return float(np.mean((np.sum(unit[:5] * unit[5:], axis=1) - targets[:, 0]) ** 2))

    before = cosine_error()
    # one pair a step (200 steps): a batch of all five pairs gets 15 steps in 15 epochs, too few to halve it
    data = examples_dataset(pairs, dse.tokenizer, labels=targets, batch_size=1, shuffle=False)
    dse.fit(data.repeat(), steps_per_epoch=len(data), epochs=40, verbose=0)  # one tf.data iterator for all epochs
    assert cosine_error() < 0.5 * before


def test_the_cosine_weight_is_only_for_one_score_and_survives_saving(tmp_path):
    with pytest.raises(ValueError, match="one-score regression"):
        make_dse(num_labels=2, cosine_weight=1.0)
    dse = make_dse(cosine_weight=0.5)
    path = str(tmp_path / "dse.keras")
    dse.save(path)
    assert keras.models.load_model(path).cosine_weight == 0.5


def test_the_ranking_weight_orders_the_head_scores_like_the_targets_and_survives_saving(tmp_path):
    """γ > 0: the default loss gains CoSENT's ranking term, and fitting puts the head's scores
    of the pairs into the order of the teacher's."""
    with pytest.raises(ValueError, match="one-score regression"):
        DSE(make_tiny_encoder(normalize=False), num_labels=2, ranking_weight=1.0)
    dse = make_dse(seed=4, ranking_weight=1.0)
    pairs = ScoredPairs(FIRST, SECOND, [0.0] * 5)
    teacher = np.array([0.9, 0.1, 0.7, 0.3, 0.5], np.float32)
    targets = np.column_stack([np.zeros(5), teacher]).astype(np.float32)
    dse.compile(optimizer=keras.optimizers.Adam(1e-2))
    assert dse.loss.ranking_weight == 1.0

    def rank_correlation():
        scores = np.reshape(dse.predict_pairs(FIRST, SECOND, progress=False), -1)
        return np.corrcoef(np.argsort(np.argsort(scores)), np.argsort(np.argsort(teacher)))[0, 1]

    before = rank_correlation()
    data = examples_dataset(pairs, dse.tokenizer, labels=targets, shuffle=False)
    dse.fit(data.repeat(), steps_per_epoch=len(data), epochs=20, verbose=0)
    assert before < 0.9 and rank_correlation() == pytest.approx(1.0)
    path = str(tmp_path / "dse.keras")
    dse.save(path)
    assert keras.models.load_model(path).ranking_weight == 1.0


def test_a_matryoshka_dse_trains_the_cosine_of_every_prefix_toward_the_score(tmp_path):
    """matryoshka_dims: in training one cosine a prefix width follows the logits, and fitting
    pulls the cosine of the short prefix (what encode(truncate_dim=m) serves) toward y too."""
    encoder = make_tiny_encoder(
        seed=3, pooling="mean", layer_indices=(-2, -1), exclude_special_tokens=True, normalize=False
    )
    dse = DSE(encoder, cosine_weight=1.0, matryoshka_dims=(4, encoder.embedding_dim), matryoshka_weights=(2.0, 1.0))
    pairs = ScoredPairs(FIRST, SECOND, [0.0] * 5)
    features, _ = next(iter(examples_dataset(pairs, dse.tokenizer, batch_size=8, shuffle=False, bucketing=False)))
    output = dse(features, training=True).numpy()
    assert output.shape == (5, 3) and dse(features).shape == (5, 1)
    short = dse.encode(FIRST + SECOND, truncate_dim=4)
    np.testing.assert_allclose(output[:, 1], np.sum(short[:5] * short[5:], axis=1), atol=1e-5)
    targets = np.column_stack([[1.0, 0.0, 1.0, 0.0, 1.0], [0.5] * 5]).astype(np.float32)
    # the loss: Σ_m β·w_m·(cos_m − y)² on top of the logits' terms
    loss = DistillationLoss(cosine_weight=[2.0, 1.0])
    want = 0.5 * (output[:, 0] - 0.5) ** 2 + 0.5 * (output[:, 0] - targets[:, 0]) ** 2
    want += 2.0 * (output[:, 1] - targets[:, 0]) ** 2 + (output[:, 2] - targets[:, 0]) ** 2
    np.testing.assert_allclose(float(loss(targets, output)), want.mean(), rtol=1e-5)

    def short_cosine_error():
        unit = dse.encode(FIRST + SECOND, truncate_dim=4)
        return float(np.mean((np.sum(unit[:5] * unit[5:], axis=1) - targets[:, 0]) ** 2))

    before = short_cosine_error()
    dse.compile(optimizer=keras.optimizers.Adam(1e-2))
    data = examples_dataset(pairs, dse.tokenizer, labels=targets, shuffle=False)
    dse.fit(data.repeat(), steps_per_epoch=len(data), epochs=15, verbose=0)
    assert short_cosine_error() < 0.5 * before
    path = str(tmp_path / "dse.keras")
    dse.save(path)
    loaded = keras.models.load_model(path)
    assert (loaded.matryoshka_dims, loaded.matryoshka_weights) == ((4, encoder.embedding_dim), (2.0, 1.0))


def test_a_matryoshka_ladder_it_cannot_train_is_refused():
    encoder = make_tiny_encoder(
        seed=3, pooling="mean", layer_indices=(-2, -1), exclude_special_tokens=True, normalize=False
    )
    with pytest.raises(ValueError, match="give cosine_weight > 0"):
        DSE(encoder, matryoshka_dims=(4, 8))
    with pytest.raises(ValueError, match="go past ψ's width"):
        DSE(encoder, cosine_weight=1.0, matryoshka_dims=(4, encoder.embedding_dim + 1))
    with pytest.raises(ValueError, match="strictly increasing"):
        DSE(encoder, cosine_weight=1.0, matryoshka_dims=(8, 4))
    with pytest.raises(ValueError, match="matryoshka_weights must be 2"):
        DSE(encoder, cosine_weight=1.0, matryoshka_dims=(4, 8), matryoshka_weights=(1.0,))


def test_frozen_student_trains_only_the_head():
    dse = make_dse(freeze_encoder=True)
    assert {w.path for w in dse.trainable_weights} == {w.path for w in dse.head.trainable_weights}
    before = [w.numpy() for w in dse.encoder.weights]
    dse.compile(optimizer=keras.optimizers.Adam(1e-2))
    targets = np.column_stack([np.linspace(0, 1, 5), np.linspace(1, 0, 5)]).astype(np.float32)
    data = examples_dataset(ScoredPairs(FIRST, SECOND, [0.0] * 5), dse.tokenizer, labels=targets)
    dse.fit(data.repeat(), steps_per_epoch=len(data), epochs=2, verbose=0)
    for b, w in zip(before, dse.encoder.weights):
        np.testing.assert_array_equal(b, w.numpy())


def test_rank_returns_the_best_catalog_entries_first_and_clamps_k():
    dse = make_dse()
    catalog_texts = FIRST + SECOND
    catalog = dse.embed(catalog_texts)
    indices, scores = dse.rank(["the cat sat", "rain"], tf.constant(catalog), k=4)
    full = dse.score_matrix(dse.embed(["the cat sat", "rain"]), catalog)
    np.testing.assert_array_equal(indices, np.argsort(-full, axis=1, kind="stable")[:, :4])
    np.testing.assert_allclose(scores, np.sort(full, axis=1)[:, ::-1][:, :4], rtol=1e-6)
    clamped, _ = dse.rank("the cat sat", catalog[:3], k=10)
    assert clamped.shape == (1, 3)


def test_bad_inputs_get_clear_errors():
    dse = make_dse()
    with pytest.raises(ValueError, match="non-empty catalog"):
        dse.rank(["a"], np.zeros((0, dse.embedding_dim), np.float32), k=1)
    with pytest.raises(ValueError, match="k must be a positive int"):
        dse.rank(["a"], random_embeddings(3, dse, 0), k=0)
    with pytest.raises(ValueError, match=r"must be float \[N, 32\]"):
        dse.score_matrix(np.zeros((2, 5)), np.zeros((2, 32)))
    with pytest.raises(ValueError, match="differ in length"):
        dse.predict_pairs(["a", "b"], ["c"])
    with pytest.raises(ValueError, match="chunk must be a positive int"):
        dse.score_matrix(np.zeros((2, 32)), np.zeros((2, 32)), chunk=0)


def test_passes_the_shared_model_checks(tmp_path):
    dse = make_dse(num_labels=2, seed=7)
    pairs = ScoredPairs(FIRST[:3], SECOND[:3], [1.0, 2.0, 3.0])
    features, _ = next(iter(examples_dataset(pairs, dse.tokenizer, batch_size=3, shuffle=False, bucketing=False)))
    run_model_test(dse, features, (3, 2), tmp_path)


def test_keras_file_round_trip_keeps_the_scores(tmp_path):
    dse = make_dse(num_labels=2, alpha=0.3, freeze_encoder=True)
    path = str(tmp_path / "dse.keras")
    dse.save(path)
    restored = keras.models.load_model(path)
    assert isinstance(restored, DSE) and (restored.alpha, restored.freeze_encoder) == (0.3, True)
    np.testing.assert_allclose(restored.predict_pairs(FIRST, SECOND), dse.predict_pairs(FIRST, SECOND), atol=1e-5)


def test_one_query_walks_the_catalog_in_tiles_with_the_same_scores(monkeypatch):
    dse = make_dse(num_labels=2)
    monkeypatch.setattr(dse_module, "QUERY_TILE_ROWS", 4)
    monkeypatch.setattr(dse_module, "_BLOCK_FUNCTIONS", {})  # trace again with 4-row tiles
    query, catalog = random_embeddings(1, dse, 5), random_embeddings(13, dse, 6)  # 3 tiles + 1 row
    expected = numpy_f(dse, np.repeat(query, 13, axis=0), catalog)
    np.testing.assert_allclose(dse.score_matrix(query, catalog)[0], expected, rtol=1e-4, atol=1e-4)


def test_a_unit_features_head_starts_as_the_cosine_and_reads_unit_vectors(tmp_path):
    encoder = make_tiny_encoder(
        seed=3, pooling="mean", layer_indices=(-2, -1), exclude_special_tokens=True, normalize=False
    )
    dse = DSE(encoder, unit_features=True)
    u, v = random_embeddings(6, dse, 7), random_embeddings(6, dse, 8)
    cosine = np.sum(u * v, axis=1) / (np.linalg.norm(u, axis=1) * np.linalg.norm(v, axis=1))
    np.testing.assert_allclose(dse.score(u, v), cosine, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(dse.score(3.0 * u, 0.5 * v), cosine, rtol=1e-5, atol=1e-6)  # lengths do not count

    kernel = dse.head.output_layer.kernel  # any head: f is the linear head on û, v̂, in every scoring path
    kernel.assign(np.random.default_rng(1).normal(scale=0.1, size=kernel.shape))
    unit_u = u / np.linalg.norm(u, axis=1, keepdims=True)
    unit_v = v / np.linalg.norm(v, axis=1, keepdims=True)
    expected = numpy_f(dse, unit_u, unit_v)[:, 0]
    np.testing.assert_allclose(dse.score(u, v), expected, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(np.diag(dse.score_matrix(u, v)), expected, rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(
        dse.score_matrix(u[:1], v)[0], numpy_f(dse, np.repeat(unit_u[:1], 6, axis=0), unit_v)[:, 0], atol=1e-4
    )

    path = str(tmp_path / "dse.keras")
    dse.save(path)
    restored = keras.models.load_model(path)
    assert restored.unit_features
    np.testing.assert_allclose(restored.score(u, v), expected, rtol=1e-4, atol=1e-5)


def test_from_pretrained_with_the_checkpoints_psi_embeds_as_the_checkpoint_does():
    from keras_sentemb import SentenceEncoder
    from tests.conftest import FIXTURES

    folder = os.path.join(FIXTURES, "st_folders", "bert_mean_normalize_old")  # 2 layers: too few for DSE's ψ
    checkpoint = SentenceEncoder.from_pretrained(folder)
    own = DSE.from_pretrained(folder, psi="checkpoint", unit_features=True)
    assert own.embedding_dim == checkpoint.embedding_dim
    assert own.psi == "checkpoint"
    assert make_dse().psi is None  # ψ of the last two layers: neither choice of from_pretrained
    np.testing.assert_allclose(own.encode(FIRST), checkpoint.encode(FIRST), atol=1e-5)  # the same unit vectors
    with pytest.raises(ValueError, match="psi must be one of"):
        DSE.from_pretrained(folder, psi="cls")
