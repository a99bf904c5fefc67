"""RetrievalEvaluator writes dev nDCG@10 (and friends) into the history, restores the best epoch,
and keeps it on disk for a resumed run."""

from pathlib import Path

import keras
import numpy as np

from keras_sentemb.data.beir_folder import read_beir_folder
from keras_sentemb.data.examples import TextPairs
from keras_sentemb.data.pipelines import examples_dataset
from keras_sentemb.models import SBERT
from keras_sentemb.training import RetrievalEvaluator
from tests.conftest import make_tiny_encoder

DEV = read_beir_folder(Path(__file__).parents[1] / "fixtures" / "beir_tiny")
PAIRS = TextPairs(
    ["the cat sat", "a dog ran", "rain and storm", "hello world"], ["a cat", "the dog", "a storm", "hello"]
)


def _fit(evaluator, encoder, epochs=3):
    sbert = SBERT(encoder, "mnrl")
    sbert.compile(optimizer=keras.optimizers.Adam(1e-2))
    data = examples_dataset(PAIRS, encoder.tokenizer, batch_size=4)
    return sbert.fit(data.repeat(), steps_per_epoch=len(data), epochs=epochs, callbacks=[evaluator], verbose=0)


def test_logs_dev_retrieval_each_epoch_and_restores_the_best_weights():
    encoder = make_tiny_encoder(seed=9)
    evaluator = RetrievalEvaluator(encoder, DEV, name="dev", restore_best_weights=True, verbose=0)
    history = _fit(evaluator, encoder)
    for measure in ("ndcg@10", "recall@100", "mrr@10", "map@100"):
        assert len(history.history[f"dev_{measure}"]) == 3
    best = max(history.history["dev_ndcg@10"])
    assert evaluator.best_ndcg == best
    np.testing.assert_allclose(evaluator.evaluate()["ndcg@10"], best, atol=1e-6)


def test_the_best_epoch_is_kept_on_disk_and_read_back_by_a_resumed_run(tmp_path):
    path = tmp_path / "best_dev.npz"
    encoder = make_tiny_encoder(seed=9)
    first = RetrievalEvaluator(encoder, DEV, restore_best_weights=True, best_weights_path=str(path), verbose=0)
    _fit(first, encoder, epochs=2)
    assert path.is_file()
    resumed = RetrievalEvaluator(make_tiny_encoder(seed=1), DEV, restore_best_weights=True, best_weights_path=str(path))
    resumed.on_train_begin()
    assert (resumed.best_ndcg, resumed.best_epoch) == (first.best_ndcg, first.best_epoch)
