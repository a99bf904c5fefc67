"""STSEvaluator: Spearman/Pearson of cosine similarity on a dev set after each epoch."""

import numpy as np

from keras_sentemb.evaluation.sts import correlations, cosine_scores
from keras_sentemb.training.best_epoch import BestEpochCallback


class STSEvaluator(BestEpochCallback):
    """After every epoch, embeds `pairs` (a `ScoredPairs`) with `encoder`, and writes
    `<name>_spearman` and `<name>_pearson` (× 100) into the epoch logs, hence into
    `history.history` and any later callback (EarlyStopping, ModelCheckpoint can monitor
    them). With `restore_best_weights=True` the model ends training with the weights of
    its best epoch by Spearman (the bookkeeping is `BestEpochCallback`'s: moving-average
    weights are the ones judged and restored). Models that score pairs themselves (`CrossEncoder`, `DSE`)
    pass `score_fn=model.predict_pairs` (a callable (sentences1, sentences2) → scores)
    instead of cosine similarity; `encoder` may then be None.

    `best_weights_path` (with `restore_best_weights`) keeps the best epoch on disk too, and
    `fit` starts from it when it is there: a run that `BackupAndRestore` resumes after a kill
    still ends with the best epoch of the whole run. Put it in the backup folder, which
    `BackupAndRestore` deletes when training ends, so that a later fresh run never sees it.

    Example:
    (Not run as a doctest: it reads files of the benchmark data folder (docs/data.md).)
        dev = read_scored_pairs("data/stsb/dev.tsv")
        sbert.fit(train, epochs=4, callbacks=[STSEvaluator(sbert.encoder, dev)])
    """

    score_key = "spearman"

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
        super().__init__(name, restore_best_weights, best_weights_path, verbose)
        if encoder is None and score_fn is None:
            raise ValueError("STSEvaluator needs an encoder or a score_fn")
        self.encoder = encoder
        self.score_fn = score_fn
        self.pairs = pairs
        self.batch_size = batch_size

    @property
    def best_spearman(self):
        """The best epoch's Spearman (× 100) so far."""
        return self.best_score

    def evaluate(self):
        """(Spearman × 100, Pearson × 100) of the encoder now."""
        if self.score_fn is not None:
            scores = np.asarray(self.score_fn(self.pairs.sentences1, self.pairs.sentences2))
        else:
            scores = cosine_scores(
                self.encoder, self.pairs.sentences1, self.pairs.sentences2, batch_size=self.batch_size, progress=False
            )
        return correlations(scores, self.pairs.scores)

    def epoch_metrics(self):
        spearman, pearson = self.evaluate()
        return {"spearman": spearman, "pearson": pearson}

    def describe(self, metrics):
        return f"Spearman {metrics['spearman']:.2f}, Pearson {metrics['pearson']:.2f}"
