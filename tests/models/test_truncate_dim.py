"""`encode(..., truncate_dim=m)` on every encoder is the first m features, normalised after
truncating (sentence-transformers' order); the SavedModel serves the same vectors; a width the
model does not have is refused before any work."""

import numpy as np
import pytest
import tensorflow as tf

from keras_sentemb import SentenceTokenizer, StaticEncoder
from keras_sentemb.export import export_saved_model
from keras_sentemb.models import DSE, BiLSTMSRA
from tests.conftest import TINY_VOCAB, make_tiny_encoder, make_tiny_word_vectors

TEXTS = ["the cat sat on the mat", "a dog ran fast", "hello world"]


def unit(x):
    return x / np.maximum(np.linalg.norm(x, axis=-1, keepdims=True), 1e-12)  # a text of unknown words: 0


def encoders():
    return {
        "SentenceEncoder": make_tiny_encoder(seed=5),
        "StaticEncoder": StaticEncoder(SentenceTokenizer(TINY_VOCAB), dim=8, projection_dim=12),
        "BiLSTMSRA": BiLSTMSRA.from_word_vectors(make_tiny_word_vectors(), units=4, teacher_dim=10),
        "DSE": DSE(make_tiny_encoder(seed=6)),
    }


@pytest.mark.parametrize("name", ["SentenceEncoder", "StaticEncoder", "BiLSTMSRA", "DSE"])
def test_the_truncated_vector_is_the_leading_features_normalised_after_truncating(name):
    model = encoders()[name]
    full = model.encode(TEXTS, normalize=False)
    np.testing.assert_allclose(model.encode(TEXTS, truncate_dim=4), unit(full[:, :4]), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(model.encode(TEXTS, normalize=False, truncate_dim=4), full[:, :4], rtol=1e-6)
    assert model.encode(TEXTS[0], truncate_dim=3).shape == (3,)


@pytest.mark.parametrize("truncate_dim", [0, 17, 2.5, True, "4"])
def test_a_width_the_model_does_not_have_is_refused(truncate_dim):
    with pytest.raises(ValueError, match=r"truncate_dim must be an int in \[1, 16\]"):
        make_tiny_encoder().encode(TEXTS, truncate_dim=truncate_dim)


def test_the_saved_model_serves_the_truncated_vectors(tmp_path):
    encoder = make_tiny_encoder(seed=5)
    folder = export_saved_model(encoder, tmp_path / "m", truncate_dim=6)
    served = tf.saved_model.load(folder).signatures["serving_default"](tf.constant(TEXTS))["embedding"].numpy()
    np.testing.assert_allclose(served, encoder.encode(TEXTS, truncate_dim=6), atol=1e-5)


def test_a_pair_scorer_export_refuses_truncate_dim(tmp_path):
    with pytest.raises(ValueError, match="truncate_dim is for sentence encoders, not a DSE"):
        export_saved_model(DSE(make_tiny_encoder()), tmp_path / "m", truncate_dim=4)
