"""BestEpochCallback: judge the model after each epoch and end training with its best epoch's weights."""

import os

import keras
import numpy as np

from keras_sentemb.training.averaged_weights import averaged_weights
from keras_sentemb.utils.atomic_files import atomic_open


class BestEpochCallback(keras.callbacks.Callback):
    """The best-epoch bookkeeping of the dev evaluators (`STSEvaluator`, `RetrievalEvaluator`):

        after epoch e:  metrics = self.epoch_metrics()      (a subclass's measure of the model now)
                        score   = metrics[self.score_key]   (higher is better)
                        keep the weights when score > the best so far

    The metrics go into the epoch logs as `<name>_<metric>` (hence `history.history`, EarlyStopping,
    ModelCheckpoint). With `restore_best_weights=True` the model ends training with the weights of its
    best epoch; with the optimizer's moving average (`use_ema=True`) the averaged weights are the ones
    judged and kept, since they are the ones `fit` ends with. `best_weights_path` (with
    `restore_best_weights`) keeps the best epoch on disk too (an .npz of its weights, score and epoch,
    written atomically) and `fit` starts from it when it is there: a run that `BackupAndRestore` resumes
    after a kill still ends with the best epoch of the whole run. Put it in the backup folder, which
    `BackupAndRestore` deletes when training ends, so that a later fresh run never sees it.

    Example (a constant judge: the first epoch stays the best):
    >>> class Constant(BestEpochCallback):
    ...     score_key = "score"
    ...     def epoch_metrics(self):
    ...         return {"score": 1.0}
    >>> judge = Constant("dev", verbose=0)
    >>> judge.set_model(keras.Sequential([keras.Input((1,)), keras.layers.Dense(1)]))
    >>> judge.model.compile(optimizer="sgd", loss="mse")
    >>> judge.on_epoch_end(0, {}); judge.on_epoch_end(1, {}); judge.best_epoch, judge.best_score
    (0, 1.0)
    """

    score_key = None  # the metric that decides the best epoch

    def __init__(self, name, restore_best_weights=False, best_weights_path=None, verbose=1):
        super().__init__()
        self.name = name
        self.restore_best_weights = restore_best_weights
        self.best_weights_path = best_weights_path
        self.verbose = verbose
        self.best_score = -np.inf
        self.best_epoch = None
        self._best_weights = None

    def epoch_metrics(self):
        """{metric: value} of the model now; `score_key` among them."""
        raise NotImplementedError

    def describe(self, metrics):
        """One line of the metrics, for the epoch's message."""
        return ", ".join(f"{metric} {value:.2f}" for metric, value in metrics.items())

    def on_train_begin(self, logs=None):
        if not (self.restore_best_weights and self.best_weights_path and os.path.isfile(self.best_weights_path)):
            return
        with np.load(self.best_weights_path) as saved:
            self.best_score, self.best_epoch = float(saved["score"]), int(saved["epoch"])
            self._best_weights = [saved[f"w{i}"] for i in range(int(saved["count"]))]
        if self.verbose:
            print(
                f"{self.name}: resuming with the best epoch so far, {self.best_epoch + 1} "
                f"({self.score_key} {self.best_score:.2f})"
            )

    def on_epoch_end(self, epoch, logs=None):
        with averaged_weights(self.model.optimizer):
            metrics = self.epoch_metrics()
            if metrics[self.score_key] > self.best_score:
                self.best_score, self.best_epoch = metrics[self.score_key], epoch
                if self.restore_best_weights:
                    self._keep_best()
        if logs is not None:
            logs.update({f"{self.name}_{metric}": value for metric, value in metrics.items()})
        if self.verbose:
            print(f"\n{self.name}: {self.describe(metrics)} (epoch {epoch + 1})")

    def _keep_best(self):
        self._best_weights = self.model.get_weights()
        if self.best_weights_path:
            arrays = {f"w{i}": w for i, w in enumerate(self._best_weights)}
            with atomic_open(self.best_weights_path, "wb") as f:
                np.savez(f, score=self.best_score, epoch=self.best_epoch, count=len(arrays), **arrays)

    def on_train_end(self, logs=None):
        if self.restore_best_weights and self._best_weights is not None:
            self.model.set_weights(self._best_weights)
            if self.verbose:
                print(
                    f"{self.name}: restored the weights of epoch {self.best_epoch + 1} "
                    f"({self.score_key} {self.best_score:.2f})"
                )
