"""StaticEncoder: a weighted mean of token vectors, with the same inputs, saving and export as every encoder."""

import keras
import numpy as np
import pytest
import tensorflow as tf

from keras_sentemb import SentenceTokenizer, StaticEncoder
from keras_sentemb.export import export_saved_model
from keras_sentemb.layers import SemanticHashing
from keras_sentemb.models import HashedEncoder
from tests.conftest import TINY_VOCAB, packed_tokens
from tests.layer_test_case import run_model_test


def tiny_static(dim=6, **kwargs):
    keras.utils.set_random_seed(0)
    return StaticEncoder(SentenceTokenizer(TINY_VOCAB, max_length=16), dim=dim, **kwargs)


def ids(*words):
    return [TINY_VOCAB.index(word) for word in words]


def test_the_embedding_is_the_weighted_mean_of_the_projected_token_vectors():
    rng = np.random.default_rng(0)
    table = rng.normal(size=(len(TINY_VOCAB), 6)).astype("float32")
    weights = rng.uniform(0.1, 2.0, size=len(TINY_VOCAB)).astype("float32")
    model = tiny_static(table=table, weights=weights, projection_dim=4)
    projection = model.projection.kernel.numpy()
    tokens = ids("the", "cat", "sat")
    expected = (weights[tokens, None] * table[tokens]).mean(axis=0) @ projection
    np.testing.assert_allclose(model.encode("the cat sat", normalize=False), expected, rtol=1e-5, atol=1e-6)


def test_word_order_and_padding_never_change_an_embedding():
    model = tiny_static(projection_dim=4)
    alone = model.encode(["the cat sat"], normalize=False)[0]
    np.testing.assert_allclose(model.encode("sat the cat", normalize=False), alone, rtol=1e-5, atol=1e-6)
    beside_a_long_text = model.encode(["the cat sat", "the dog ran fast on the mat . " * 3], batch_size=2)
    np.testing.assert_allclose(beside_a_long_text[0], alone / np.linalg.norm(alone), rtol=1e-5, atol=1e-6)


def test_an_empty_text_is_the_zero_vector_and_long_texts_are_truncated():
    model = tiny_static()
    empty, spaces, long = model.encode(["", "   ", "the cat " * 50])
    np.testing.assert_array_equal(empty, np.zeros(6))
    np.testing.assert_array_equal(spaces, np.zeros(6))
    # max_length 16 = [CLS] + 14 word pieces + [SEP]
    np.testing.assert_allclose(long, model.encode("the cat " * 7), rtol=1e-5, atol=1e-6)


def test_ragged_pooling_of_a_request_equals_the_padded_model():
    model = tiny_static(projection_dim=5)
    texts = ["the cat sat on the mat .", "", "dog", "hello world !"]
    ragged = model.embed_content_ids(model.tokenizer.content_ids(tf.constant(texts))).numpy()
    np.testing.assert_allclose(ragged, model.encode(texts, normalize=False), rtol=1e-5, atol=1e-6)


def test_passes_the_shared_model_checks(tmp_path):
    model = tiny_static(projection_dim=4)
    inputs = packed_tokens(model.tokenizer, ["the cat sat", "a dog ran fast .", ""])
    run_model_test(model, inputs, (3, 4), tmp_path)


def test_save_load_round_trip(tmp_path):
    model = tiny_static(projection_dim=3, token_weights=False)
    path = str(tmp_path / "static.keras")
    model.save(path)
    loaded = keras.saving.load_model(path)
    assert isinstance(loaded, StaticEncoder) and loaded.get_config() == model.get_config()
    texts = ["the cat sat", "", "rain storm"]
    np.testing.assert_allclose(loaded.encode(texts), model.encode(texts), rtol=1e-6, atol=1e-6)


def test_exported_saved_model_takes_strings(tmp_path):
    model = tiny_static(projection_dim=4)
    folder = export_saved_model(model, str(tmp_path / "static"))
    served = tf.saved_model.load(folder).signatures["serving_default"]
    texts = ["the cat sat", "", "a dog ran fast .", "Straße, CAFÉ [SEP] !"]
    np.testing.assert_allclose(
        served(texts=tf.constant(texts))["embedding"].numpy(), model.encode(texts), rtol=1e-5, atol=1e-6
    )


def test_takes_a_hashing_head_like_any_encoder():
    hashed = HashedEncoder(tiny_static(projection_dim=8), SemanticHashing(64))
    codes = hashed.hash(["the cat sat", "a dog ran"])
    assert codes.shape == (2, 8) and codes.dtype == np.uint8


@pytest.mark.parametrize(
    "arguments, message",
    [
        ({"dim": 0}, "dim must be a positive int"),
        ({"projection_dim": 2.5}, "projection_dim must be"),
        ({"table": np.zeros((3, 6))}, "table must have shape"),
        ({"weights": np.ones(4)}, "weights must have shape"),
        ({"weights": np.ones(len(TINY_VOCAB)), "token_weights": False}, "token_weights=False"),
    ],
)
def test_rejects_bad_arguments_naming_them(arguments, message):
    with pytest.raises(ValueError, match=message):
        tiny_static(**arguments)
