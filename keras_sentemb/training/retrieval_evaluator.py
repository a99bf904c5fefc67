"""RetrievalEvaluator: nDCG@10 (and recall@100, MRR@10, MAP@100) on a dev collection after each epoch."""

from keras_sentemb.evaluation.beir_retrieval import evaluate_beir
from keras_sentemb.training.best_epoch import BestEpochCallback


class RetrievalEvaluator(BestEpochCallback):
    """After every epoch, `evaluate_beir(encoder, collection)` (a `BeirCollection`, e.g. the dev
    split: `read_beir_folder(folder, split="dev")`), writing `<name>_ndcg@10`, `<name>_recall@100`,
    `<name>_mrr@10` and `<name>_map@100` (× 100) into the epoch logs. With
    `restore_best_weights=True` training ends with the weights of the best epoch by nDCG@10;
    `best_weights_path` keeps that epoch on disk too, so a run that `BackupAndRestore` resumes
    after a kill still ends with the best epoch of the whole run (`ResumableRun.best_weights_path`;
    the bookkeeping is `BestEpochCallback`'s). Moving-average weights (`use_ema=True`) are the
    ones judged and restored.

    Example:
    (Not run as a doctest: it reads the benchmark data folder, docs/data.md.)
        dev = read_beir_folder("data/beir/nfcorpus", split="dev")
        sbert.fit(train, epochs=2, callbacks=[RetrievalEvaluator(sbert.encoder, dev, restore_best_weights=True)])
    """

    score_key = "ndcg@10"

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
        super().__init__(name, restore_best_weights, best_weights_path, verbose)
        self.encoder = encoder
        self.collection = collection
        self.batch_size = batch_size
        self.document_options = document_options

    @property
    def best_ndcg(self):
        """The best epoch's nDCG@10 (× 100) so far."""
        return self.best_score

    def evaluate(self):
        """The measures (× 100) of the encoder now: {"ndcg@10": …, …}."""
        return evaluate_beir(
            self.encoder,
            self.collection,
            batch_size=self.batch_size,
            progress=False,
            document_options=self.document_options,
        ).metrics

    def epoch_metrics(self):
        return self.evaluate()
