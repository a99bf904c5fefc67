"""Nested (Matryoshka) binary codes: trained with a prefix ladder, every prefix is a better code
than the same prefix of a code trained at full length only; `hash(bits=)`, the SavedModel and
the index read the prefixes, and the ladder is part of the layer's config."""

import numpy as np
import pytest
import tensorflow as tf
from scipy.stats import spearmanr

from keras_sentemb.export import export_saved_model
from keras_sentemb.layers import SemanticHashing
from keras_sentemb.models import HashedEncoder
from keras_sentemb.training.code_distillation import distill_code
from keras_sentemb.training.itq_initialisation import itq_projection, nested_itq_projection
from tests.conftest import make_tiny_encoder

RNG = np.random.default_rng(0)
# 32-d vectors with a decaying spectrum, as sentence embeddings have: a short code must keep the
# strongest directions.
VECTORS = (RNG.normal(size=(1024, 32)) * np.linspace(3.0, 0.2, 32)).astype("float32")
QUERIES = VECTORS[:200]


def prefix_spearman(hashing, bits):
    unit = VECTORS / np.linalg.norm(VECTORS, axis=1, keepdims=True)
    codes = np.asarray(hashing.binarize(unit))[:, :bits].astype(np.float32) * 2 - 1
    first, second = np.arange(0, 400, 2), np.arange(1, 401, 2)
    cosine = (unit[first] * unit[second]).sum(axis=1)
    return spearmanr((codes[first] * codes[second]).sum(axis=1), cosine).statistic


def distill(nested_bits):
    hashing, _ = distill_code(
        VECTORS, 64, epochs=4, batch_size=256, learning_rate=1e-2, nested_bits=nested_bits, verbose=0
    )
    return hashing


def test_a_nested_code_keeps_more_of_the_geometry_in_its_short_prefix():
    plain, nested = distill(None), distill((16, 32, 64))
    assert nested.nested_bits == (16, 32, 64) and plain.nested_bits is None
    # measured: 16 bits 0.63 vs 0.51; 64 bits 0.79 vs 0.83 (the nested code pays a little at full length)
    assert prefix_spearman(nested, 16) > prefix_spearman(plain, 16) + 0.06
    assert prefix_spearman(nested, 64) > prefix_spearman(plain, 64) - 0.08


def test_the_nested_itq_start_is_itq_at_the_first_rung():
    kernel, bias = nested_itq_projection(VECTORS, (16, 32, 64), iterations=3)
    first_kernel, first_bias = itq_projection(VECTORS, 16, iterations=3)
    assert kernel.shape == (32, 64)
    np.testing.assert_allclose(kernel[:, :16], first_kernel)
    np.testing.assert_allclose(bias[:16], first_bias)


@pytest.mark.parametrize("ladder", [(64, 32), (16, 32), (12, 64), (0, 64), ()])
def test_a_ladder_that_does_not_end_at_the_code_length_or_is_not_in_bytes_is_refused(ladder):
    with pytest.raises(ValueError, match="nested_bits must be strictly increasing multiples of 8"):
        SemanticHashing(64, nested_bits=ladder)


def test_the_ladder_survives_the_config():
    layer = SemanticHashing(128, nested_bits=(64, 128))
    assert SemanticHashing.from_config(layer.get_config()).nested_bits == (64, 128)


def test_hash_bits_is_the_prefix_of_the_whole_code_in_the_model_and_its_saved_model(tmp_path):
    encoder = make_tiny_encoder(seed=3)
    hashed = HashedEncoder(encoder, SemanticHashing(128, nested_bits=(64, 128)))
    texts = ["the cat sat on the mat", "a dog ran fast", "hello world"]
    whole = hashed.hash(texts)
    np.testing.assert_array_equal(hashed.hash(texts, bits=64), whole[:, :8])
    np.testing.assert_array_equal(hashed.hash(texts, packed=False, bits=24), hashed.hash(texts, packed=False)[:, :24])
    with pytest.raises(ValueError, match="bits must be a multiple of 8 from 8 to 128"):
        hashed.hash(texts, bits=100)
    folder = export_saved_model(hashed, tmp_path / "m", code_bits=64, code_table=whole[:, :8])
    model = tf.saved_model.load(folder)
    np.testing.assert_array_equal(model.signatures["hash"](tf.constant(texts))["codes"].numpy(), whole[:, :8])
    found = model.signatures["search"](texts=tf.constant(texts[:1]), k=tf.constant(1))
    assert int(found["ids"].numpy()[0, 0]) == 0 and int(found["distances"].numpy()[0, 0]) == 0


def test_the_sts_evaluation_reports_every_shorter_rung_of_a_nested_code():
    from keras_sentemb.data.examples import ScoredPairs
    from keras_sentemb.evaluation.report import evaluate
    from keras_sentemb.evaluation.sts import correlations
    from keras_sentemb.evaluation.tasks import STSTask

    hashed = HashedEncoder(make_tiny_encoder(seed=3), SemanticHashing(128, nested_bits=(64, 96, 128)))
    pairs = ScoredPairs(
        ["the cat sat", "a dog ran", "hello world", "the mat"], ["a cat", "the dog", "world", "mat"], [4, 3, 1, 2]
    )
    metrics = evaluate(hashed, [STSTask("tiny", pairs)])[0].metrics
    assert {"hamming_spearman", "hamming_spearman_64", "hamming_spearman_96"} <= set(metrics)
    assert "hamming_spearman_128" not in metrics  # the whole code is "hamming_spearman"
    first, second = (hashed.hash(texts, bits=64) for texts in (pairs.sentences1, pairs.sentences2))
    distances = np.bitwise_count(first ^ second).sum(axis=1, dtype=np.int64)
    assert metrics["hamming_spearman_64"] == pytest.approx(correlations(-distances, pairs.scores)[0])


def test_the_sign_start_is_the_embeddings_own_features_then_random_hyperplanes():
    from keras_sentemb.training.code_distillation import sign_projection

    kernel = sign_projection(32, 48, seed=1)
    np.testing.assert_array_equal(kernel[:, :32], np.eye(32))
    assert np.abs(kernel[:, 32:]).min() > 0 and kernel.shape == (32, 48)
    np.testing.assert_array_equal(sign_projection(32, 16), np.eye(32)[:, :16])
    hashing, history = distill_code(VECTORS, 64, epochs=0, init="sign", nested_bits=(16, 32, 64))
    assert history is None
    unit = VECTORS / np.linalg.norm(VECTORS, axis=1, keepdims=True)
    logits = unit @ sign_projection(32, 64)
    centred = logits - logits.mean(axis=1, keepdims=True)  # the layer normalisation across the bits
    np.testing.assert_array_equal(np.asarray(hashing.binarize(unit)), (centred > 0).astype(np.uint8))
    with pytest.raises(ValueError, match="init must be 'itq', 'sign' or 'random'"):
        distill_code(VECTORS, 64, epochs=0, init="pca")
