"""CrossEncoder on a tiny random BERT and a tiny random MPNet: pair packing, smart batching, fit, save,
bad input."""

import os

import keras
import numpy as np
import pytest
import tensorflow as tf
from tokenizers import Tokenizer

from keras_sentemb.data.examples import LabeledPairs, ScoredPairs
from keras_sentemb.data.pipelines import cross_pairs_dataset
from keras_sentemb.models import CrossEncoder
from tests.conftest import FIXTURES, make_tiny_cross_encoder
from tests.layer_test_case import run_model_test

FIRST = ["the cat sat on the mat", "a dog ran", "hello", "rain and storm", "the oven was hot ."]
SECOND = ["a cat sat", "the dog ran fast", "hello world", "storm", "bread"]


def one_pair_logits(model, first, second):
    ids, segments = model.tokenizer.pair_ids(tf.constant([first]), tf.constant([second]))
    inputs = {
        "token_ids": ids.to_tensor(),
        "segment_ids": segments.to_tensor(),
        "padding_mask": tf.ones_like(ids.to_tensor()),
    }
    return model(inputs).numpy()[0]


def test_pairs_are_packed_as_one_sequence_with_segment_ids():
    model = make_tiny_cross_encoder()
    ids, segments = model.tokenizer.pair_ids(tf.constant(["the cat"]), tf.constant(["a dog ran"]))
    cls, sep = model.tokenizer.cls_token_id, model.tokenizer.sep_token_id
    assert ids.to_list()[0][0] == cls and ids.to_list()[0].count(sep) == 2
    assert segments.to_list() == [[0, 0, 0, 0, 1, 1, 1, 1]]


def test_long_pairs_are_trimmed_longest_first_to_max_length():
    model = make_tiny_cross_encoder(max_length=8)  # budget 5 content tokens
    ids, segments = model.tokenizer.pair_ids(
        tf.constant(["the cat sat on the mat", "a"]), tf.constant(["a dog ran fast .", "the cat sat on the mat"])
    )
    assert [len(row) for row in ids.to_list()] == [8, 8]
    # two long sentences share the budget (3 + 2); a short one is kept whole (1 + 4)
    assert segments.to_list()[0] == [0, 0, 0, 0, 0, 1, 1, 1]
    assert segments.to_list()[1] == [0, 0, 0, 1, 1, 1, 1, 1]


def test_predict_pairs_with_smart_batching_equals_one_pair_at_a_time():
    model = make_tiny_cross_encoder(num_labels=3)
    batched = model.predict_pairs(FIRST, SECOND, batch_size=2)
    single = np.stack([one_pair_logits(model, a, b) for a, b in zip(FIRST, SECOND)])
    assert batched.shape == (5, 3)
    np.testing.assert_allclose(batched, single, atol=1e-5)


def test_a_regressor_returns_one_score_per_pair():
    scores = make_tiny_cross_encoder(num_labels=1).predict_pairs(FIRST, SECOND)
    assert scores.shape == (5,) and scores.dtype == np.float32


def test_mismatched_pair_lists_are_refused():
    with pytest.raises(ValueError, match="differ in length: 2 first sentences, 1 second"):
        make_tiny_cross_encoder().predict_pairs(["a", "b"], ["c"])


def test_fit_learns_the_training_scores():
    examples = ScoredPairs(FIRST * 32, SECOND * 32, [0.9, 0.8, 0.5, 0.3, 0.0] * 32)
    model = make_tiny_cross_encoder(num_labels=1, seed=3)
    model.compile(optimizer=keras.optimizers.Adam(1e-2))
    assert isinstance(model.loss, keras.losses.MeanSquaredError)
    # padded batches of 20 pairs: one input shape, so `fit` traces once
    data = cross_pairs_dataset(examples, model.tokenizer, batch_size=20, seed=0, bucketing=False)
    history = model.fit(data.repeat(), steps_per_epoch=len(data), epochs=2, verbose=0)  # one tf.data iterator
    assert history.history["loss"][-1] < 0.5 * history.history["loss"][0]


def test_a_classifier_defaults_to_softmax_cross_entropy():
    model = make_tiny_cross_encoder(num_labels=2)
    model.compile(optimizer="adam")
    assert isinstance(model.loss, keras.losses.SparseCategoricalCrossentropy)
    features, labels = next(
        iter(
            cross_pairs_dataset(
                LabeledPairs(FIRST, SECOND, [1, 1, 0, 1, 0]), model.tokenizer, shuffle=False, bucketing=False
            )
        )
    )
    assert set(features) == {"token_ids", "segment_ids", "padding_mask"}
    assert labels.dtype == tf.int32 and model(features).shape == (5, 2)


def test_passes_the_shared_model_checks(tmp_path):
    model = make_tiny_cross_encoder(num_labels=2, seed=7)
    ids, segments = model.tokenizer.pair_ids(tf.constant(FIRST[:3]), tf.constant(SECOND[:3]))
    token_ids = ids.to_tensor().numpy()
    inputs = {
        "token_ids": token_ids,
        "segment_ids": segments.to_tensor().numpy(),
        "padding_mask": (token_ids != 0).astype("int32"),
    }
    run_model_test(model, inputs, (3, 2), tmp_path)


def test_keras_file_round_trip_keeps_the_scores(tmp_path):
    model = make_tiny_cross_encoder(num_labels=2)
    path = str(tmp_path / "ce.keras")
    model.save(path)
    restored = keras.models.load_model(path)
    assert isinstance(restored, CrossEncoder) and restored.num_labels == 2
    np.testing.assert_allclose(restored.predict_pairs(FIRST, SECOND), model.predict_pairs(FIRST, SECOND), atol=1e-6)


def test_a_mean_pooling_head_reads_the_mean_of_the_real_tokens_and_round_trips(tmp_path):
    model = make_tiny_cross_encoder(num_labels=1, seed=2, pooling="mean")
    batched = model.predict_pairs(FIRST, SECOND, batch_size=2)  # padded to each batch's longest pair
    single = np.stack([one_pair_logits(model, a, b) for a, b in zip(FIRST, SECOND)])[:, 0]
    np.testing.assert_allclose(batched, single, atol=1e-5)
    ids, segments = model.tokenizer.pair_ids(tf.constant([FIRST[0]]), tf.constant([SECOND[0]]))
    states = model.backbone(
        {
            "token_ids": ids.to_tensor(),
            "segment_ids": segments.to_tensor(),
            "padding_mask": tf.ones_like(ids.to_tensor()),
        }
    )["sequence_output"]
    logits = model.get_layer("logits")
    expected = np.mean(states.numpy()[0], axis=0) @ logits.kernel.numpy() + logits.bias.numpy()
    np.testing.assert_allclose(batched[0], expected[0], atol=1e-5)
    path = str(tmp_path / "ce.keras")
    model.save(path)
    restored = keras.models.load_model(path)
    assert restored.pooling == "mean"
    np.testing.assert_allclose(restored.predict_pairs(FIRST, SECOND), batched, atol=1e-6)
    with pytest.raises(ValueError, match="pooling must be one of .* for BertBackbone, got 'max'"):
        make_tiny_cross_encoder(pooling="max")


def test_a_backbone_without_named_inputs_is_refused_clearly():
    import keras

    inputs = keras.Input(shape=(None,), dtype="int32")
    backbone = keras.Model(inputs, keras.layers.Embedding(20, 8)(inputs))
    with pytest.raises(ValueError, match="backbone of named inputs .* got Functional"):
        CrossEncoder(backbone)


def test_any_family_backbone_reads_pairs_distilbert_included():
    import keras_hub

    backbone = keras_hub.models.DistilBertBackbone(
        vocabulary_size=20, num_layers=1, num_heads=2, hidden_dim=8, intermediate_dim=16, max_sequence_length=8
    )
    model = CrossEncoder(backbone, pooling="first")
    assert model.input_names == ("token_ids", "padding_mask")
    with pytest.raises(ValueError, match="pooling must be one of .* for DistilBertBackbone, got 'pooler'"):
        CrossEncoder(backbone, pooling="pooler")


# ------------------------------------------------------------------ MPNet
MPNET_FOLDER = os.path.join(FIXTURES, "st_folders", "mpnet_mean_normalize_old")


@pytest.fixture(scope="module")
def mpnet_cross_encoder():
    """A cross-encoder on the tiny random MPNet sentence-transformers folder of the fixtures."""
    keras.utils.set_random_seed(0)
    return CrossEncoder.from_pretrained(MPNET_FOLDER, num_labels=1, dropout=0.0)


def test_mpnet_reads_pairs_as_its_tokenizer_json_packs_them_without_segment_ids(mpnet_cross_encoder):
    reference = Tokenizer.from_file(os.path.join(MPNET_FOLDER, "tokenizer.json"))
    ids, _ = mpnet_cross_encoder.tokenizer.pair_ids(tf.constant(FIRST), tf.constant(SECOND))
    assert ids.to_list() == [reference.encode(a, b).ids for a, b in zip(FIRST, SECOND)]
    assert mpnet_cross_encoder.input_names == ("token_ids", "padding_mask")
    assert mpnet_cross_encoder.pooling == "cls"


def test_mpnet_head_is_dense_tanh_on_the_first_token_then_the_output_layer(mpnet_cross_encoder):
    model = mpnet_cross_encoder
    ids, _ = model.tokenizer.pair_ids(tf.constant(FIRST), tf.constant(SECOND))
    dense, logits = model.get_layer("cls_dense"), model.get_layer("logits")
    expected = []
    for row in ids.to_list():
        one = model.backbone({"token_ids": tf.constant([row]), "padding_mask": tf.ones([1, len(row)], tf.int32)})
        hidden = np.tanh(one.numpy()[0, 0] @ dense.kernel.numpy() + dense.bias.numpy())
        expected.append((hidden @ logits.kernel.numpy() + logits.bias.numpy())[0])
    np.testing.assert_allclose(model.predict_pairs(FIRST, SECOND, batch_size=2), expected, atol=1e-5)


def test_mpnet_cross_encoder_fits_and_round_trips(mpnet_cross_encoder, tmp_path):
    examples = ScoredPairs(FIRST * 8, SECOND * 8, [0.9, 0.8, 0.5, 0.3, 0.0] * 8)
    model = CrossEncoder.from_pretrained(MPNET_FOLDER, num_labels=1, dropout=0.0)
    model.compile(optimizer=keras.optimizers.Adam(1e-2))
    data = cross_pairs_dataset(examples, model.tokenizer, batch_size=8, bucketing=False, input_names=model.input_names)
    assert set(next(iter(data))[0]) == {"token_ids", "padding_mask"}
    history = model.fit(data.repeat(), steps_per_epoch=len(data), epochs=3, verbose=0)  # one tf.data iterator
    assert history.history["loss"][-1] < history.history["loss"][0]
    path = str(tmp_path / "mpnet_ce.keras")
    model.save(path)
    restored = keras.models.load_model(path)
    assert restored.input_names == model.input_names and restored.tokenizer.pair_separators == 2
    np.testing.assert_allclose(restored.predict_pairs(FIRST, SECOND), model.predict_pairs(FIRST, SECOND), atol=1e-6)


def test_mpnet_has_no_pooler_to_read():
    with pytest.raises(
        ValueError, match=r"pooling must be one of \('cls', 'mean', 'first', 'last'\) for MPNetBackbone"
    ):
        CrossEncoder.from_pretrained(MPNET_FOLDER, pooling="pooler")
