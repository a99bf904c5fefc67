"""STSEvaluator writes dev Spearman/Pearson into the history and can restore the best epoch."""

import keras
import numpy as np

from keras_sentemb.data.examples import ScoredPairs
from keras_sentemb.data.pipelines import examples_dataset
from keras_sentemb.models import SBERT
from keras_sentemb.training import STSEvaluator
from tests.conftest import make_tiny_encoder

PAIRS = ScoredPairs(
    ["the cat sat", "a dog ran", "rain and storm", "hello world"],
    ["a cat sat", "the dog ran", "the oven", "hello"],
    [4.5, 4.0, 0.5, 3.5],
)


def test_logs_dev_correlations_each_epoch_and_restores_the_best_weights():
    encoder = make_tiny_encoder(seed=9)
    sbert = SBERT(encoder, "regression")
    sbert.compile(optimizer=keras.optimizers.Adam(1e-2))
    evaluator = STSEvaluator(encoder, PAIRS, name="dev", restore_best_weights=True, verbose=0)
    data = examples_dataset(PAIRS, encoder.tokenizer, batch_size=2)
    history = sbert.fit(
        data.repeat(),
        steps_per_epoch=len(data),
        epochs=3,  # one iterator for all epochs
        callbacks=[evaluator],
        verbose=0,
    )
    assert len(history.history["dev_spearman"]) == 3 and len(history.history["dev_pearson"]) == 3
    best = max(history.history["dev_spearman"])
    assert evaluator.best_spearman == best
    np.testing.assert_allclose(evaluator.evaluate()[0], best, atol=1e-6)


def test_with_an_ema_optimizer_it_judges_the_averaged_weights_that_fit_ends_with():
    encoder = make_tiny_encoder(seed=9)
    sbert = SBERT(encoder, "regression")
    sbert.compile(optimizer=keras.optimizers.Adam(1e-2, use_ema=True, ema_momentum=0.9))
    evaluator = STSEvaluator(encoder, PAIRS, name="dev", verbose=0)
    data = examples_dataset(PAIRS, encoder.tokenizer, batch_size=2)
    history = sbert.fit(data.repeat(), steps_per_epoch=len(data), epochs=2, callbacks=[evaluator], verbose=0)
    final_pearson = evaluator.evaluate()[1]
    np.testing.assert_allclose(final_pearson, history.history["dev_pearson"][-1], atol=1e-6)
    averages = [a.numpy() for a in sbert.optimizer._model_variables_moving_average]
    for variable, average in zip(sbert.optimizer._trainable_variables, averages):
        np.testing.assert_array_equal(variable.numpy(), average)


class ScoresByEpoch:
    """A score_fn whose dev quality is set per call: good, then reversed (worst)."""

    def __init__(self, good):
        self.good = list(good)

    def __call__(self, first, second):
        scores = np.asarray(PAIRS.scores, np.float32)
        return scores if self.good.pop(0) else -scores


def test_a_resumed_run_still_ends_with_the_best_epoch_of_the_run_before_the_kill(tmp_path):
    path = str(tmp_path / "backup" / "best_dev.npz")
    model = keras.Sequential([keras.Input((1,)), keras.layers.Dense(1)])
    model.compile(keras.optimizers.SGD(0.1), "mse")
    x, y = np.ones((4, 1)), np.full((4, 1), 3.0)

    def fit(good):
        evaluator = STSEvaluator(
            None, PAIRS, score_fn=ScoresByEpoch(good), restore_best_weights=True, best_weights_path=path, verbose=0
        )
        model.fit(x, y, epochs=len(good), callbacks=[evaluator], verbose=0)
        return evaluator

    first = fit([True])  # the killed process: its only epoch is the best
    best_weights = [w.copy() for w in model.get_weights()]
    second = fit([False, False])  # the resumed process trains on, worse on dev
    assert (second.best_epoch, second.best_spearman) == (0, first.best_spearman)
    for restored, expected in zip(model.get_weights(), best_weights):
        np.testing.assert_array_equal(restored, expected)
