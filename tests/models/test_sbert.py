"""SBERT on a tiny random encoder: objectives, default losses, fit, serialization."""

import keras
import numpy as np
import pytest

from keras_sentemb import losses
from keras_sentemb.data.examples import LabeledPairs, ScoredPairs, Triplets
from keras_sentemb.data.pipelines import examples_dataset
from keras_sentemb.models import SBERT
from keras_sentemb.training import NaNGuard
from tests.conftest import make_tiny_encoder
from tests.layer_test_case import run_model_test

PAIRS = ScoredPairs(
    ["the cat sat", "a dog ran", "rain and storm", "hello world", "the oven", "cat on mat"] * 2,
    ["a cat sat", "the dog ran fast", "the oven was hot", "hello", "bread in the oven", "rain"] * 2,
    [4.5, 4.0, 0.5, 3.5, 3.0, 0.0] * 2,
)


def batch(encoder, examples):
    # One batch holding every example: without bucketing (the ladder would split it by length).
    return next(iter(examples_dataset(examples, encoder.tokenizer, batch_size=32, shuffle=False, bucketing=False)))


def test_pair_objectives_return_u_and_v_stacked():
    encoder = make_tiny_encoder()
    features, _ = batch(encoder, PAIRS)
    stacked = np.asarray(SBERT(encoder, "regression")(features))
    assert stacked.shape == (len(PAIRS), 2, 16)
    u = encoder.encode(list(PAIRS.sentences1), normalize=False)
    # batch order is by length, so compare as sets of rows
    assert np.allclose(np.sort(stacked[:, 0], axis=0), np.sort(u, axis=0), atol=1e-5)


@pytest.mark.parametrize(
    "objective, loss_type",
    [
        ("regression", losses.CosineSimilarityLoss),
        ("cosent", losses.CoSENTLoss),
        ("classification", losses.SoftmaxPairLoss),
        ("triplet", losses.TripletLoss),
        ("mnrl", losses.MultipleNegativesRankingLoss),
    ],
)
def test_compile_picks_the_objective_default_loss(objective, loss_type):
    sbert = SBERT(make_tiny_encoder(), objective)
    sbert.compile(optimizer="adam")
    assert isinstance(sbert.loss, loss_type)


def test_fit_lowers_the_loss_and_leaves_a_usable_encoder():
    encoder = make_tiny_encoder(seed=1)
    sbert = SBERT(encoder, "regression")
    sbert.compile(optimizer=keras.optimizers.Adam(1e-2))
    data = examples_dataset(PAIRS, encoder.tokenizer, batch_size=4, seed=0)
    # one iterator for all epochs (a new one per epoch costs ~1 s of tf.data setup)
    history = sbert.fit(data.repeat(), steps_per_epoch=len(data), epochs=10, verbose=0)
    assert history.history["loss"][-1] < 0.5 * history.history["loss"][0]
    assert encoder.encode(["the cat sat"]).shape == (1, 16)


def test_classification_trains_a_pair_head():
    encoder = make_tiny_encoder(seed=2)
    labeled = LabeledPairs(PAIRS.sentences1, PAIRS.sentences2, [0, 0, 2, 1, 1, 2] * 2)
    sbert = SBERT(encoder, "classification", num_classes=3)
    features, _ = batch(encoder, labeled)
    assert sbert(features).shape == (len(labeled), 3)
    sbert.compile(optimizer=keras.optimizers.Adam(1e-2))
    data = examples_dataset(labeled, encoder.tokenizer, batch_size=4)
    history = sbert.fit(data.repeat(), steps_per_epoch=len(data), epochs=6, verbose=0)
    assert history.history["loss"][-1] < history.history["loss"][0]


def test_triplet_and_mnrl_objectives_take_triplets():
    encoder = make_tiny_encoder(seed=3)
    triplets = Triplets(["the cat", "a dog"], ["a cat", "the dog"], ["rain", "storm"])
    features, _ = batch(encoder, triplets)
    assert SBERT(encoder, "triplet")(features).shape == (2, 3, 16)
    assert SBERT(encoder, "mnrl")(features).shape == (2, 3, 16)
    pair_features, _ = batch(encoder, PAIRS)
    assert SBERT(encoder, "mnrl")(pair_features).shape == (len(PAIRS), 2, 16)
    with pytest.raises(ValueError, match=r"needs input columns \['anchor', 'positive', 'negative'\]"):
        SBERT(encoder, "triplet")(pair_features)


def test_one_pass_a_column_gives_the_same_vectors_as_one_pass_over_all():
    encoder = make_tiny_encoder(seed=3)
    triplets = Triplets(["cat"], ["the cat sat on the mat . a dog ran fast"], ["rain"])
    features, _ = batch(encoder, triplets)
    together = np.asarray(SBERT(encoder, "mnrl")(features))
    separate = SBERT(encoder, "mnrl", one_pass=False)
    np.testing.assert_allclose(np.asarray(separate(features)), together, atol=1e-5)
    assert SBERT.from_config(separate.get_config()).one_pass is False


def test_fit_adds_a_nan_guard_unless_one_is_given_and_follows_the_pipelines_epoch_order():
    encoder = make_tiny_encoder(seed=4)
    sbert = SBERT(encoder, "regression")
    sbert.compile(optimizer="adam")
    seen = []

    original_fit = keras.Model.fit

    def recording_fit(model, *args, callbacks=None, **kwargs):  # what keras.Model.fit is given
        seen.append([type(c).__name__ for c in callbacks])

    keras.Model.fit = recording_fit
    try:
        data = examples_dataset(PAIRS, encoder.tokenizer, batch_size=12)
        sbert.fit(data, epochs=1, verbose=0)
        sbert.fit(data, epochs=1, verbose=0, callbacks=[NaNGuard()])
    finally:
        keras.Model.fit = original_fit
    assert seen == [["FollowEpochs", "NaNGuard"], ["FollowEpochs", "NaNGuard"]]


def test_passes_the_shared_model_checks(tmp_path):
    encoder = make_tiny_encoder(seed=7)
    sbert = SBERT(encoder, "classification", num_classes=3)
    features, _ = batch(encoder, PAIRS)
    run_model_test(sbert, features, (12, 3), tmp_path)


def test_rejects_unknown_objectives_and_encoders():
    with pytest.raises(ValueError, match="unknown objective 'ranking'"):
        SBERT(make_tiny_encoder(), "ranking")
    with pytest.raises(TypeError, match="SentenceEncoder"):
        SBERT(keras.layers.Dense(2))
