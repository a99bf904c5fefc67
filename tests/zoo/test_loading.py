"""One entry point for an encoder (and one for a pair scorer): a zoo name, a `.keras` file of an accepted class, or a
preset / HF folder; anything else is named in the error."""

import numpy as np
import pytest

from keras_sentemb.evaluation.sts import cosine_scores
from keras_sentemb.models import CrossEncoder, HashedEncoder
from keras_sentemb.training import distill_hashed_encoder
from keras_sentemb.training.cosine_pair_scorer import CosinePairScorer
from keras_sentemb.zoo.loading import load_any_encoder, load_dse, load_pair_scorer, load_sentence_encoder
from tests.conftest import make_tiny_cross_encoder, make_tiny_encoder


def test_a_keras_file_loads_as_the_encoder_it_holds(tmp_path):
    encoder = make_tiny_encoder(seed=3)
    encoder.save(tmp_path / "tiny.keras")
    loaded = load_sentence_encoder(tmp_path / "tiny.keras")
    assert type(loaded) is type(encoder)
    assert loaded.encode(["the cat sat"]).tolist() == encoder.encode(["the cat sat"]).tolist()


def test_a_hashed_encoder_is_any_encoder_but_not_a_sentence_encoder(tmp_path):
    encoder = make_tiny_encoder(seed=3)
    hashed = distill_hashed_encoder(encoder, encoder.encode(["a", "the cat", "a dog", "rain"]), 64, epochs=1, verbose=0)
    hashed.save(tmp_path / "hashed.keras")
    assert isinstance(load_any_encoder(tmp_path / "hashed.keras"), HashedEncoder)
    with pytest.raises(TypeError, match="holds a HashedEncoder, not a SentenceEncoder or InferLite or BiLSTMSRA"):
        load_sentence_encoder(tmp_path / "hashed.keras")


def test_a_missing_keras_file_and_an_unknown_zoo_model_are_named(tmp_path):
    with pytest.raises(FileNotFoundError, match="no such .keras file"):
        load_sentence_encoder(tmp_path / "missing.keras")
    with pytest.raises((KeyError, ValueError), match="no-such-model"):
        load_sentence_encoder("zoo:no-such-model")


def test_a_dse_is_any_encoder_so_that_evaluate_measures_its_vectors(tmp_path):
    from keras_sentemb.data.examples import ScoredPairs
    from keras_sentemb.evaluation import evaluate
    from keras_sentemb.evaluation.tasks import STSTask
    from tests.models.test_dse import make_dse

    make_dse(cosine_weight=1.0).save(tmp_path / "dse.keras")
    dse = load_any_encoder(tmp_path / "dse.keras")
    pairs = ScoredPairs(["the cat sat", "a dog ran", "rain"], ["a cat sat", "the mat", "a dog"], [4.0, 1.0, 0.5])
    (result,) = evaluate(dse, [STSTask("tiny", pairs)])
    assert type(dse).__name__ == "DSE" and -100 <= result.metrics[result.main_metric] <= 100
    with pytest.raises(TypeError, match="holds a DSE, not a SentenceEncoder"):
        load_sentence_encoder(tmp_path / "dse.keras")


def test_a_dse_loads_from_a_keras_file_and_anything_else_is_named(tmp_path):
    from tests.models.test_dse import make_dse

    dse = make_dse(cosine_weight=1.0)
    dse.save(tmp_path / "dse.keras")
    loaded = load_dse(tmp_path / "dse.keras")
    first, second = ["the cat sat", "a dog ran"], ["a cat sat", "rain"]
    np.testing.assert_allclose(
        loaded.predict_pairs(first, second, progress=False), dse.predict_pairs(first, second, progress=False), atol=1e-6
    )
    make_tiny_encoder(seed=3).save(tmp_path / "tiny.keras")
    with pytest.raises(TypeError, match="holds a SentenceEncoder, not a DSE"):
        load_dse(tmp_path / "tiny.keras")
    with pytest.raises(ValueError, match="a DSE is a zoo model .* or a .keras file, got 'minilm-l6'"):
        load_dse("minilm-l6")


def test_a_pair_scorer_is_a_cross_encoder_itself_or_an_encoders_cosine(tmp_path):
    first, second = ["the cat sat", "a dog ran"], ["a cat sat", "rain"]
    cross_encoder = make_tiny_cross_encoder(seed=1)
    cross_encoder.save(tmp_path / "cross.keras")
    scorer = load_pair_scorer(tmp_path / "cross.keras")
    assert isinstance(scorer, CrossEncoder)
    np.testing.assert_allclose(
        scorer.predict_pairs(first, second, progress=False),
        cross_encoder.predict_pairs(first, second, progress=False),
        atol=1e-6,
    )
    encoder = make_tiny_encoder(seed=3)
    encoder.save(tmp_path / "tiny.keras")
    for spec in (str(tmp_path / "tiny.keras"), f"cosine:{tmp_path / 'tiny.keras'}"):
        scorer = load_pair_scorer(spec)
        assert isinstance(scorer, CosinePairScorer)
        np.testing.assert_allclose(
            scorer.predict_pairs(first, second, progress=False),
            cosine_scores(encoder, first, second),
            atol=1e-5,
        )


def test_a_pair_scorer_that_is_neither_is_named(tmp_path):
    encoder = make_tiny_encoder(seed=3)
    hashed = distill_hashed_encoder(encoder, encoder.encode(["a", "the cat", "a dog", "rain"]), 64, epochs=1, verbose=0)
    hashed.save(tmp_path / "hashed.keras")
    with pytest.raises(TypeError, match="holds a HashedEncoder, not a CrossEncoder or SentenceEncoder"):
        load_pair_scorer(tmp_path / "hashed.keras")
