"""The RunInference handler for our SavedModels: signatures read without loading, one
PredictionResult per text with its vector (and code for hashed exports), clear errors."""

import numpy as np
import pytest
import tensorflow as tf

from keras_sentemb.beam.saved_model_handler import SavedModelEmbeddingHandler, embed_texts, saved_model_signatures


class LengthModel(tf.Module):
    """A stand-in export: embedding = [byte length, 1], code = [byte length] as uint8."""

    @tf.function(input_signature=[tf.TensorSpec([None], tf.string, name="texts")])
    def embed(self, texts):
        length = tf.cast(tf.strings.length(texts), tf.float32)
        return {"embedding": tf.stack([length, tf.ones_like(length)], 1)}

    @tf.function(input_signature=[tf.TensorSpec([None], tf.string, name="texts")])
    def hash(self, texts):
        return {"codes": tf.cast(tf.strings.length(texts), tf.uint8)[:, None]}


def save(folder, with_hash):
    model = LengthModel()
    signatures = {"serving_default": model.embed}
    if with_hash:
        signatures["hash"] = model.hash
    tf.saved_model.save(model, str(folder), signatures=signatures)
    return str(folder)


def test_signatures_are_read_from_the_protobuf(tmp_path):
    assert saved_model_signatures(save(tmp_path / "m", with_hash=True)) == ["hash", "serving_default"]
    with pytest.raises(FileNotFoundError, match="not a SavedModel folder"):
        saved_model_signatures(str(tmp_path))


def test_each_text_gets_its_vector_and_code_in_batch_order(tmp_path):
    model = tf.saved_model.load(save(tmp_path / "m", with_hash=True))
    results = list(embed_texts(model, ["ab", b"xyz\xff"], with_codes=True, model_id="m"))
    assert [r.example for r in results] == ["ab", b"xyz\xff"]
    np.testing.assert_array_equal(results[1].inference["embedding"], [4.0, 1.0])
    assert results[0].inference["code"].tolist() == [2] and results[0].model_id == "m"
    assert "code" not in next(embed_texts(model, ["ab"])).inference


def test_the_handler_takes_codes_when_the_export_has_them_and_refuses_them_otherwise(tmp_path):
    assert SavedModelEmbeddingHandler(save(tmp_path / "hashed", with_hash=True)).with_codes
    plain = save(tmp_path / "plain", with_hash=False)
    assert not SavedModelEmbeddingHandler(plain).with_codes
    with pytest.raises(ValueError, match="no `hash` signature"):
        SavedModelEmbeddingHandler(plain, with_codes=True)
