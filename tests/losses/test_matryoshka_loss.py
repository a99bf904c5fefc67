"""MatryoshkaLoss: the inner loss on every prefix of the embedding, weighted and summed; it
serialises with its inner loss, refuses a ladder it cannot read, and trains SBERT's prefixes."""

import keras
import numpy as np
import pytest

from keras_sentemb import losses
from keras_sentemb.losses import CodeSimilarityLoss, CoSENTLoss, MatryoshkaLoss

RNG = np.random.default_rng(0)
PAIRS = RNG.normal(size=(6, 2, 8)).astype("float32")
SCORES = RNG.uniform(0, 5, size=6).astype("float32")


def test_it_is_the_weighted_sum_of_the_inner_loss_on_each_prefix():
    wrapped = MatryoshkaLoss(CoSENTLoss(), dims=(2, 4, 8), weights=(1.0, 0.5, 2.0))
    expected = sum(w * float(CoSENTLoss()(SCORES, PAIRS[..., :m])) for m, w in ((2, 1.0), (4, 0.5), (8, 2.0)))
    assert float(wrapped(SCORES, PAIRS)) == pytest.approx(expected, rel=1e-5)


def test_on_relaxed_codes_each_prefix_is_compared_as_a_code_of_its_own_length():
    teacher = RNG.normal(size=(16, 8)).astype("float32")
    codes = RNG.uniform(size=(16, 64)).astype("float32")
    wrapped = MatryoshkaLoss(CodeSimilarityLoss(), dims=(16, 64))
    expected = float(CodeSimilarityLoss()(teacher, codes[:, :16])) + float(CodeSimilarityLoss()(teacher, codes))
    assert float(wrapped(teacher, codes)) == pytest.approx(expected, rel=1e-5)


def test_it_round_trips_through_its_config_and_the_registry():
    wrapped = losses.get("matryoshka", loss="cosent", dims=[4, 8], weights=[1, 0.25])
    again = losses.get(losses.serialize(wrapped))
    assert isinstance(again.loss, CoSENTLoss) and again.dims == (4, 8) and again.weights == (1.0, 0.25)
    assert float(again(SCORES, PAIRS)) == pytest.approx(float(wrapped(SCORES, PAIRS)))


@pytest.mark.parametrize(
    "dims, weights, message",
    [
        ((8, 4), None, "strictly increasing"),
        ((0, 4), None, "strictly increasing"),
        ((), None, "strictly increasing"),
        ((4, 8), (1.0,), "weights must be 2"),
        ((4, 8), (0.0, 0.0), "not all 0"),
    ],
)
def test_a_ladder_or_weights_it_cannot_use_are_refused(dims, weights, message):
    with pytest.raises(ValueError, match=message):
        MatryoshkaLoss("cosent", dims=dims, weights=weights)


def test_a_prefix_wider_than_the_prediction_is_refused():
    with pytest.raises(ValueError, match="the widest prefix 16 is wider than the prediction"):
        MatryoshkaLoss("cosent", dims=(4, 16))(SCORES, PAIRS)


def test_sbert_fits_with_it_and_its_short_prefix_learns_the_task():
    from keras_sentemb.data.examples import ScoredPairs
    from keras_sentemb.data.pipelines import examples_dataset
    from keras_sentemb.models import SBERT
    from tests.conftest import make_tiny_encoder

    pairs = ScoredPairs(
        ["the cat sat", "a dog ran", "rain and storm", "hello world", "the oven", "cat on mat"] * 2,
        ["a cat sat", "the dog ran fast", "the oven was hot", "hello", "bread in the oven", "rain"] * 2,
        [4.5, 4.0, 0.5, 3.5, 3.0, 0.0] * 2,
    )
    encoder = make_tiny_encoder(seed=1)
    sbert = SBERT(encoder, "regression")
    sbert.compile(optimizer=keras.optimizers.Adam(1e-2), loss=MatryoshkaLoss("cosine_similarity", dims=(4, 16)))
    data = examples_dataset(pairs, encoder.tokenizer, batch_size=4, seed=0)
    short = losses.CosineSimilarityLoss()

    def prefix_loss():
        u, v = (encoder.encode(t, normalize=False, truncate_dim=4) for t in (pairs.sentences1, pairs.sentences2))
        return float(short(np.asarray(pairs.scores, "float32"), np.stack([u, v], axis=1)))

    before = prefix_loss()
    history = sbert.fit(data.repeat(), steps_per_epoch=len(data), epochs=10, verbose=0)
    assert history.history["loss"][-1] < 0.5 * history.history["loss"][0]
    # the 4-feature prefix itself learnt the scores: measured 0.023 × its loss before; the same fit
    # with the plain CosineSimilarityLoss leaves it at 0.36 ×
    assert prefix_loss() < 0.1 * before
