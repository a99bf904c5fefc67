"""encode(backend="litert"): the model converted to LiteRT gives the TensorFlow vectors at float32, stays
close at int8 without calibration, and gives a text the same vector alone or in any batch."""

import os

import keras
import numpy as np
import pytest

from keras_sentemb.models import SentenceEncoder
from keras_sentemb.runtime import resolve_runtime
from keras_sentemb.runtime.litert_runtime import LiteRTRuntime
from tests.conftest import ENCODER_HEADS, FIXTURES, make_tiny_encoder

pytest.importorskip("ai_edge_litert")

TEXTS = ["the cat sat on the mat .", "", "a dog ran fast", "hello world ! " * 3, "rain", "storm storm storm"]


@pytest.fixture(scope="module")
def encoder():
    return make_tiny_encoder(seed=21)


@pytest.mark.parametrize("head", list(ENCODER_HEADS))
def test_float32_gives_the_tensorflow_vectors_for_every_pooling_and_head(head):
    encoder = make_tiny_encoder(seed=22, **ENCODER_HEADS[head])
    reference = encoder.encode(TEXTS, normalize=False)
    np.testing.assert_allclose(encoder.encode(TEXTS, normalize=False, backend="litert"), reference, atol=1e-5)


def test_int8_stays_close_to_float32_without_calibration(encoder):
    vectors = encoder.encode(TEXTS, backend="litert", precision="int8")
    reference = encoder.encode(TEXTS)
    assert vectors.dtype == np.float32 and vectors.shape == reference.shape
    assert np.sum(vectors * reference, axis=1).min() > 0.98
    assert encoder.inference_runtime("litert", "int8").inference_precision == "int8 (dynamic range)"


@pytest.mark.parametrize("precision", ["int8", "float32"])
def test_a_texts_vector_is_the_same_alone_and_in_any_batch(encoder, precision):
    texts = TEXTS * 3 + ["a cat", "the oven was hot and the bread was fast"]
    batched = encoder.encode(texts, batch_size=8, backend="litert", precision=precision)
    whole = encoder.encode(texts, batch_size=len(texts), backend="litert", precision=precision)
    alone = np.stack([encoder.encode(text, backend="litert", precision=precision) for text in texts])
    np.testing.assert_allclose(alone, batched, atol=1e-4, rtol=0)
    np.testing.assert_allclose(whole, batched, atol=1e-4, rtol=0)


def test_int8_pads_each_text_to_its_own_rung_and_float32_to_the_batch(encoder):
    ladder = encoder.length_buckets
    assert encoder.inference_runtime("litert", "int8").padding_buckets(ladder) == tuple(ladder)
    assert encoder.inference_runtime("litert", "float32").padding_buckets(ladder) == ()


def test_runtimes_are_cached_per_backend_and_precision(encoder):
    litert = encoder.inference_runtime("litert", "float32")
    assert isinstance(litert, LiteRTRuntime) and encoder.inference_runtime("litert", "float32") is litert
    assert encoder.inference_runtime("litert", "int8") is not litert
    assert not isinstance(encoder.inference_runtime("tensorflow", "float32"), LiteRTRuntime)


def test_fit_drops_the_converted_snapshot_of_the_weights():
    encoder = make_tiny_encoder(seed=23)
    before = encoder.encode(TEXTS, backend="litert")
    inputs = encoder.tokenizer.pack(encoder.tokenizer.content_ids(np.array(TEXTS[:4], dtype=object)))
    encoder.compile(optimizer=keras.optimizers.SGD(0.5), loss="mse")
    targets = np.ones((4, encoder.embedding_dim), np.float32)
    encoder.fit({k: np.asarray(v) for k, v in inputs.items()}, targets, epochs=2, verbose=0)
    after = encoder.encode(TEXTS, backend="litert")
    assert np.abs(after - before).max() > 1e-3  # the weights moved, and the LiteRT model saw it
    np.testing.assert_allclose(after, encoder.encode(TEXTS), atol=1e-5)


def test_bfloat16_on_litert_is_refused_with_the_backend_that_runs_it():
    with pytest.raises(ValueError, match="precision='bfloat16' runs on backend='openvino'"):
        resolve_runtime("litert", "bfloat16")


def test_a_model_with_a_reduced_precision_policy_is_refused_by_name():
    mixed = SentenceEncoder.from_pretrained(
        os.path.join(FIXTURES, "st_folders", "bert_mean_normalize_old"), dtype="mixed_bfloat16"
    )
    with pytest.raises(
        ValueError, match="backend='litert' converts a float32 model; this one computes in mixed_bfloat16"
    ):
        mixed.encode(TEXTS, backend="litert")
