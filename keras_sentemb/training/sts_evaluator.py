"""STSEvaluator: Spearman/Pearson of cosine similarity on a dev set after each epoch."""

import os

import keras
import numpy as np

from keras_sentemb.evaluation.sts import correlations, cosine_scores
from keras_sentemb.training.averaged_weights import averaged_weights
from keras_sentemb.utils.atomic_files import atomic_open


class STSEvaluator(keras.callbacks.Callback):
    """After every epoch, embeds `pairs` (a `ScoredPairs`) with `encoder`, and writes
    `<name>_spearman` and `<name>_pearson` (× 100) into the epoch logs, hence into
    `history.history` and any later callback (EarlyStopping, ModelCheckpoint can monitor
    them). With `restore_best_weights=True` the model ends training with the weights of
    its best epoch by Spearman. When the optimizer keeps a moving average of the weights
    (`use_ema=True`) the averaged weights are the ones judged and restored, since they are
    the ones `fit` ends with. Models that score pairs themselves (`CrossEncoder`, `DSE`)
    pass `score_fn=model.predict_pairs` (a callable (sentences1, sentences2) → scores)
    instead of cosine similarity; `encoder` may then be None.

    `best_weights_path` (with `restore_best_weights`) keeps the best epoch on disk too (an
    .npz with its weights, Spearman and epoch, written atomically), and `fit` starts from
    it when it is there: a run that `BackupAndRestore` resumes after a kill still ends with
    the best epoch of the whole run. Put it in the backup folder, which `BackupAndRestore`
    deletes when training ends, so that a later fresh run never sees it.

    Example:
    (Not run as a doctest: it reads files of the benchmark data folder (docs/data.md).)
        dev = read_scored_pairs("data/stsb/dev.tsv")
        sbert.fit(train, epochs=4, callbacks=[STSEvaluator(sbert.encoder, dev)])
    """

    def __init__(
        self,
        encoder,
        pairs,
        name="sts_dev",
        batch_size=64,
        restore_best_weights=False,
        verbose=1,
        score_fn=None,
        best_weights_path=None,
    ):
        super().__init__()
        if encoder is None and score_fn is None:
            raise ValueError("STSEvaluator needs an encoder or a score_fn")
        self.encoder = encoder
        self.score_fn = score_fn
        self.pairs = pairs
        self.name = name
        self.batch_size = batch_size
        self.restore_best_weights = restore_best_weights
        self.verbose = verbose
        self.best_weights_path = best_weights_path
        self.best_spearman = -np.inf
        self.best_epoch = None
        self._best_weights = None

    def on_train_begin(self, logs=None):
        if not (self.restore_best_weights and self.best_weights_path and os.path.isfile(self.best_weights_path)):
            return
        with np.load(self.best_weights_path) as saved:
            self.best_spearman, self.best_epoch = float(saved["spearman"]), int(saved["epoch"])
            self._best_weights = [saved[f"w{i}"] for i in range(int(saved["count"]))]
        if self.verbose:
            print(f"{self.name}: resuming with the best epoch so far, {self.best_epoch + 1} ({self.best_spearman:.2f})")

    def _keep_best(self):
        self._best_weights = self.model.get_weights()
        if self.best_weights_path:
            arrays = {f"w{i}": w for i, w in enumerate(self._best_weights)}
            with atomic_open(self.best_weights_path, "wb") as f:
                np.savez(f, spearman=self.best_spearman, epoch=self.best_epoch, count=len(arrays), **arrays)

    def evaluate(self):
        """(Spearman × 100, Pearson × 100) of the encoder now."""
        if self.score_fn is not None:
            scores = np.asarray(self.score_fn(self.pairs.sentences1, self.pairs.sentences2))
        else:
            scores = cosine_scores(
                self.encoder, self.pairs.sentences1, self.pairs.sentences2, batch_size=self.batch_size, progress=False
            )
        return correlations(scores, self.pairs.scores)

    def on_epoch_end(self, epoch, logs=None):
        with averaged_weights(self.model.optimizer):
            spearman, pearson = self.evaluate()
            if spearman > self.best_spearman:
                self.best_spearman, self.best_epoch = spearman, epoch
                if self.restore_best_weights:
                    self._keep_best()
        if logs is not None:
            logs[f"{self.name}_spearman"] = spearman
            logs[f"{self.name}_pearson"] = pearson
        if self.verbose:
            print(f"\n{self.name}: Spearman {spearman:.2f}, Pearson {pearson:.2f} (epoch {epoch + 1})")

    def on_train_end(self, logs=None):
        if self.restore_best_weights and self._best_weights is not None:
            self.model.set_weights(self._best_weights)
            if self.verbose:
                print(
                    f"{self.name}: restored the weights of epoch {self.best_epoch + 1} "
                    f"(Spearman {self.best_spearman:.2f})"
                )
