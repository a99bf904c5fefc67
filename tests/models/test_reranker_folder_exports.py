"""A loaded reranker folder's raw-string SavedModel scores (query, document) pairs as `predict_pairs` does
(≤ 1e-5), a causal reranker survives Keras saving with its chat template, and a loaded reranker fine-tunes
with `fit` (the CrossEncoder packs the pairs). In `make test-slow`: each exports or trains (~1 min)."""

import os

import numpy as np
import pytest
import tensorflow as tf

from keras_sentemb.export.pair_model_export import export_cross_encoder
from keras_sentemb.models import CrossEncoder
from tests.models.test_reranker_folders import FOLDERS, pairs


@pytest.mark.parametrize("name", ["xlm_roberta_reranker", "qwen3_reranker", "modernbert_reranker_mean"])
def test_the_raw_string_saved_model_scores_as_predict_pairs(name, tmp_path):
    model = CrossEncoder.from_pretrained(os.path.join(FOLDERS, name))
    queries, documents = pairs()
    expected = model.predict_pairs(queries, documents, batch_size=16, progress=False)
    served = tf.saved_model.load(str(export_cross_encoder(model, tmp_path / "served")))
    scores = served.signatures["serving_default"](texts_a=tf.constant(queries), texts_b=tf.constant(documents))
    np.testing.assert_allclose(scores["scores"].numpy()[:, 0], expected, atol=1e-5, rtol=0)


def test_a_causal_reranker_survives_keras_saving(tmp_path):
    import keras

    model = CrossEncoder.from_pretrained(os.path.join(FOLDERS, "qwen3_reranker"))
    path = str(tmp_path / "reranker.keras")
    model.save(path)
    restored = keras.saving.load_model(path)
    queries, documents = pairs()
    np.testing.assert_allclose(
        restored.predict_pairs(queries[:12], documents[:12], progress=False),
        model.predict_pairs(queries[:12], documents[:12], progress=False),
        atol=1e-6,
    )
    assert restored.pair_template == model.pair_template


@pytest.mark.parametrize("name", ["qwen3_reranker", "modernbert_reranker_mean"])
def test_a_loaded_reranker_fine_tunes_with_fit(name):
    import keras

    from keras_sentemb.data.examples import ScoredPairs
    from keras_sentemb.data.pipelines import cross_pairs_dataset

    model = CrossEncoder.from_pretrained(os.path.join(FOLDERS, name))
    queries, documents = pairs()
    before = model.predict_pairs(queries[:8], documents[:8], progress=False)
    train = ScoredPairs(queries[:16], documents[:16], [float(i % 2) for i in range(16)])
    data = cross_pairs_dataset(train, model, batch_size=8, input_names=model.input_names)  # the model packs pairs
    model.compile(keras.optimizers.Adam(1e-3), loss=keras.losses.BinaryCrossentropy(from_logits=True))
    history = model.fit(data, epochs=1, verbose=0)
    assert np.isfinite(history.history["loss"][0])
    assert not np.allclose(model.predict_pairs(queries[:8], documents[:8], progress=False), before)
