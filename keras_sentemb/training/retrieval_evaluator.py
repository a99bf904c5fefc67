"""RetrievalEvaluator: nDCG@10 (and recall@100, MRR@10, MAP@100) on a dev collection after each epoch."""

import os

import keras
import numpy as np

from keras_sentemb.evaluation.beir_retrieval import evaluate_beir
from keras_sentemb.training.averaged_weights import averaged_weights
from keras_sentemb.utils.atomic_files import atomic_open


class RetrievalEvaluator(keras.callbacks.Callback):
    """After every epoch, `evaluate_beir(encoder, collection)` (a `BeirCollection`, e.g. the dev
    split: `read_beir_folder(folder, split="dev")`), writing `<name>_ndcg@10`, `<name>_recall@100`,
    `<name>_mrr@10` and `<name>_map@100` (× 100) into the epoch logs. With
    `restore_best_weights=True` training ends with the weights of the best epoch by nDCG@10;
    `best_weights_path` keeps that epoch on disk too (written atomically, read back when `fit`
    starts), so a run that `BackupAndRestore` resumes after a kill still ends with the best
    epoch of the whole run (`ResumableRun.best_weights_path`). Moving-average weights
    (`use_ema=True`) are the ones judged and restored, as in `STSEvaluator`.

    Example:
    (Not run as a doctest: it reads the benchmark data folder, docs/data.md.)
        dev = read_beir_folder("data/beir/nfcorpus", split="dev")
        sbert.fit(train, epochs=2, callbacks=[RetrievalEvaluator(sbert.encoder, dev, restore_best_weights=True)])
    """

    def __init__(
        self,
        encoder,
        collection,
        name="retrieval_dev",
        batch_size=64,
        restore_best_weights=False,
        best_weights_path=None,
        document_options=None,
        verbose=1,
    ):
        super().__init__()
        self.encoder = encoder
        self.collection = collection
        self.name = name
        self.batch_size = batch_size
        self.restore_best_weights = restore_best_weights
        self.best_weights_path = best_weights_path
        self.document_options = document_options
        self.verbose = verbose
        self.best_ndcg = -np.inf
        self.best_epoch = None
        self._best_weights = None

    def evaluate(self):
        """The measures (× 100) of the encoder now: {"ndcg@10": …, …}."""
        return evaluate_beir(
            self.encoder,
            self.collection,
            batch_size=self.batch_size,
            progress=False,
            document_options=self.document_options,
        ).metrics

    def on_train_begin(self, logs=None):
        if not (self.restore_best_weights and self.best_weights_path and os.path.isfile(self.best_weights_path)):
            return
        with np.load(self.best_weights_path) as saved:
            self.best_ndcg, self.best_epoch = float(saved["ndcg"]), int(saved["epoch"])
            self._best_weights = [saved[f"w{i}"] for i in range(int(saved["count"]))]
        if self.verbose:
            print(
                f"{self.name}: resuming with the best epoch so far, {self.best_epoch + 1} (nDCG@10 {self.best_ndcg:.2f})"
            )

    def on_epoch_end(self, epoch, logs=None):
        with averaged_weights(self.model.optimizer):
            metrics = self.evaluate()
            if metrics["ndcg@10"] > self.best_ndcg:
                self.best_ndcg, self.best_epoch = metrics["ndcg@10"], epoch
                if self.restore_best_weights:
                    self._best_weights = self.model.get_weights()
                    if self.best_weights_path:
                        arrays = {f"w{i}": w for i, w in enumerate(self._best_weights)}
                        with atomic_open(self.best_weights_path, "wb") as f:
                            np.savez(f, ndcg=self.best_ndcg, epoch=self.best_epoch, count=len(arrays), **arrays)
        if logs is not None:
            logs.update({f"{self.name}_{measure}": value for measure, value in metrics.items()})
        if self.verbose:
            print(f"\n{self.name}: " + ", ".join(f"{m} {v:.2f}" for m, v in metrics.items()) + f" (epoch {epoch + 1})")

    def on_train_end(self, logs=None):
        if self.restore_best_weights and self._best_weights is not None:
            self.model.set_weights(self._best_weights)
            if self.verbose:
                print(
                    f"{self.name}: restored the weights of epoch {self.best_epoch + 1} (nDCG@10 {self.best_ndcg:.2f})"
                )
