"""Evaluation tasks: each one measures an encoder on one dataset and returns a `TaskResult`.

- `STSTask`: Spearman/Pearson × 100 of a pair similarity against gold scores (cosine; a
  hashed model is also measured with Hamming similarity of its codes).
- `ProbeTask`: SentEval classification probe (logistic regression on frozen embeddings;
  train/test split or k-fold cross-validation).
- `PairClassificationTask`: paraphrase detection, threshold on cosine chosen on dev.
- `NLIProbeTask`: NLI accuracy of a probe on the pair features [u, v, |u − v|, u ∘ v]
  (SentEval's SNLI task).
- `HashRecallTask`: for a hashed model, recall@k of the exact cosine neighbours found by
  Hamming search, against the number of code bits used (the recall-vs-bits curve).

Run them with `keras_sentemb.evaluation.report.evaluate` (or `keras-sentemb evaluate`).
"""

import dataclasses
import math
import time
import warnings

import numpy as np

from keras_sentemb.evaluation.neighbour_recall import neighbour_recall
from keras_sentemb.evaluation.pair_classification import threshold_accuracy_and_f1
from keras_sentemb.evaluation.pair_similarity import pair_similarity
from keras_sentemb.evaluation.probes import cross_validated_probe, train_test_probe
from keras_sentemb.evaluation.sts import correlations
from keras_sentemb.retrieval.binary_codes import code_prefix, unpack_bits


@dataclasses.dataclass
class TaskResult:
    """What a task measured: `metrics` (name → value, NaN when undefined), the headline
    `main_metric`, the number of test examples, seconds spent, warnings raised while
    measuring, and `plot` data for the report's pictures (not written to JSON)."""

    name: str
    kind: str
    metrics: dict
    main_metric: str
    size: int
    seconds: float = 0.0
    warnings: list = dataclasses.field(default_factory=list)
    details: dict = dataclasses.field(default_factory=dict)
    plot: dict = dataclasses.field(default_factory=dict, repr=False)

    def as_json(self):
        """A JSON-safe dict: NaN metrics become null (see `warnings` for why)."""

        def safe(value):
            return None if isinstance(value, float) and math.isnan(value) else value

        return {
            "name": self.name,
            "kind": self.kind,
            "main_metric": self.main_metric,
            "metrics": {k: safe(v) for k, v in self.metrics.items()},
            "size": self.size,
            "seconds": round(self.seconds, 3),
            "warnings": list(self.warnings),
            "details": self.details,
        }


class EvaluationTask:
    """A named measurement. Subclasses implement `measure(memo) -> TaskResult`."""

    kind = "task"

    def __init__(self, name):
        self.name = name

    def run(self, memo):
        """`measure(memo)` with its wall time and the warnings it raised recorded."""
        start = time.perf_counter()
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            result = self.measure(memo)
        result.seconds = time.perf_counter() - start
        result.warnings.extend(str(w.message) for w in caught if issubclass(w.category, (RuntimeWarning, UserWarning)))
        return result

    def measure(self, memo):
        raise NotImplementedError

    def __repr__(self):
        return f"{type(self).__name__}({self.name!r})"


class STSTask(EvaluationTask):
    """Spearman ρ and Pearson r × 100 of cos(u, v) (and, for a hashed model, of Hamming
    similarity −d_H(code_u, code_v); for a nested code also of each shorter rung's prefix,
    "hamming_spearman_<bits>") against the gold scores of `pairs` (`ScoredPairs`).
    A constant prediction or gold list gives NaN with a warning in the result."""

    kind = "sts"

    def __init__(self, name, pairs, source=None):
        super().__init__(name)
        self.pairs = pairs
        self.source = source

    def measure(self, memo):
        pairs = self.pairs
        cosine = memo.pair_similarity("cosine", pairs.sentences1, pairs.sentences2)
        spearman, pearson = correlations(cosine, pairs.scores)
        metrics = {"spearman": spearman, "pearson": pearson}
        plot = {"predicted": cosine, "gold": np.asarray(pairs.scores, np.float64), "similarity": "cosine"}
        if memo.hashed:
            hamming = memo.pair_similarity("hamming", pairs.sentences1, pairs.sentences2)
            metrics["hamming_spearman"], metrics["hamming_pearson"] = correlations(hamming, pairs.scores)
            if memo.nested_bits:  # a nested code: each shorter rung is a code of its own
                codes1, codes2 = memo.codes(pairs.sentences1), memo.codes(pairs.sentences2)
                for bits in memo.nested_bits[:-1]:
                    hamming = pair_similarity("hamming", code_prefix(codes1, bits), code_prefix(codes2, bits))
                    metrics[f"hamming_spearman_{bits}"], _ = correlations(hamming, pairs.scores)
        details = {"source": self.source} if self.source else {}
        return TaskResult(self.name, self.kind, metrics, "spearman", len(pairs.scores), details=details, plot=plot)


class ProbeTask(EvaluationTask):
    """SentEval classification probe on frozen unit embeddings: `train_test_probe` when a
    `test` split is given (C chosen on `dev`, or by inner k-fold on train), else
    `cross_validated_probe` over `train` with `folds` folds. Reports accuracy × 100."""

    kind = "probe"

    def __init__(self, name, train, test=None, dev=None, folds=10, seed=0, source=None):
        super().__init__(name)
        self.train, self.test, self.dev = train, test, dev
        self.folds, self.seed, self.source = folds, seed, source

    def measure(self, memo):
        x = memo.embed(self.train.sentences)
        if self.test is None:
            result = cross_validated_probe(x, np.asarray(self.train.labels), folds=self.folds, seed=self.seed)
        else:
            dev = {}
            if self.dev is not None:
                dev = {"dev_features": memo.embed(self.dev.sentences), "dev_labels": np.asarray(self.dev.labels)}
            result = train_test_probe(
                x,
                np.asarray(self.train.labels),
                memo.embed(self.test.sentences),
                np.asarray(self.test.labels),
                seed=self.seed,
                **dev,
            )
        metrics = {"accuracy": result.accuracy}
        if result.folds > 1:
            metrics["accuracy_std"] = result.accuracy_std
        details = {"c": result.c, "folds": result.folds, "train_size": len(self.train), "seed": self.seed}
        if self.source:
            details["source"] = self.source
        return TaskResult(self.name, self.kind, metrics, "accuracy", result.test_size, details=details)


class PairClassificationTask(EvaluationTask):
    """Paraphrase detection from cosine similarity alone (SentEval MRPC without a trained
    classifier, MTEB PairClassification): the threshold that maximises accuracy on `dev`
    (`LabeledPairs`, class 1 = paraphrase) is applied to `test`; accuracy and F1 × 100."""

    kind = "pair-classification"

    def __init__(self, name, dev, test, source=None):
        super().__init__(name)
        self.dev, self.test, self.source = dev, test, source

    def measure(self, memo):
        accuracy, f1, threshold = threshold_accuracy_and_f1(
            memo.pair_similarity("cosine", self.dev.sentences1, self.dev.sentences2),
            self.dev.labels,
            memo.pair_similarity("cosine", self.test.sentences1, self.test.sentences2),
            self.test.labels,
        )
        details = {"threshold": threshold, "dev_size": len(self.dev)}
        if self.source:
            details["source"] = self.source
        return TaskResult(
            self.name, self.kind, {"accuracy": accuracy, "f1": f1}, "accuracy", len(self.test), details=details
        )


def nli_pair_features(u, v):
    """[u, v, |u − v|, u ∘ v] per pair: the NLI features of InferSent and SentEval."""
    u, v = np.asarray(u, np.float32), np.asarray(v, np.float32)
    return np.concatenate([u, v, np.abs(u - v), u * v], axis=1)


class NLIProbeTask(EvaluationTask):
    """NLI accuracy × 100 of a logistic-regression probe on `nli_pair_features` of frozen
    embeddings, trained on `train` (`LabeledPairs`), C chosen on `dev`, tested on `test`.
    (A model trained with an NLI head is scored directly by `pair_scorer_metrics`.)"""

    kind = "nli"

    def __init__(self, name, train, test, dev=None, seed=0, source=None):
        super().__init__(name)
        self.train, self.test, self.dev = train, test, dev
        self.seed, self.source = seed, source

    def _features(self, memo, pairs):
        return nli_pair_features(memo.embed(pairs.sentences1), memo.embed(pairs.sentences2))

    def measure(self, memo):
        dev = {}
        if self.dev is not None:
            dev = {"dev_features": self._features(memo, self.dev), "dev_labels": np.asarray(self.dev.labels)}
        result = train_test_probe(
            self._features(memo, self.train),
            np.asarray(self.train.labels),
            self._features(memo, self.test),
            np.asarray(self.test.labels),
            seed=self.seed,
            **dev,
        )
        details = {"c": result.c, "train_size": len(self.train), "seed": self.seed}
        if self.source:
            details["source"] = self.source
        return TaskResult(
            self.name, self.kind, {"accuracy": result.accuracy}, "accuracy", result.test_size, details=details
        )


def code_bit_prefixes(bits, smallest=16):
    """Bit counts 16, 32, 64, … up to `bits` (always ending with `bits` itself)."""
    counts = []
    size = smallest
    while size < bits:
        counts.append(size)
        size *= 2
    return counts + [bits]


class HashRecallTask(EvaluationTask):
    """Recall-vs-bits of a hashed model: each of the first `queries` sentences searches the
    other `sentences` by Hamming distance on the first b bits of the codes; recall@k is
    the share of its exact cosine top-k (float embeddings) found in the Hamming top-k,
    and in the Hamming top-(`rerank`·k) candidates (what a re-ranking search can reach)."""

    kind = "hash-recall"

    def __init__(self, name, sentences, queries=1000, k=10, rerank=10, source=None):
        super().__init__(name)
        self.sentences = list(dict.fromkeys(sentences))
        self.queries, self.k, self.rerank, self.source = queries, k, rerank, source

    def measure(self, memo):

        if not memo.hashed:
            raise TypeError(f"task {self.name!r} needs a HashedEncoder .keras model")
        count = len(self.sentences)
        if count <= self.k * self.rerank:
            raise ValueError(f"task {self.name!r}: {count} sentences are too few for top-{self.k * self.rerank}")
        vectors = memo.embed(self.sentences)
        bits = unpack_bits(memo.codes(self.sentences)).astype(np.float32) * 2.0 - 1.0  # ±1
        queries = min(self.queries, count)
        exclude_self = np.full((queries, count), 0.0, np.float32)
        exclude_self[np.arange(queries), np.arange(queries)] = -np.inf
        true = np.argsort(-(vectors[:queries] @ vectors.T + exclude_self), axis=1, kind="stable")[:, : self.k]
        prefixes = code_bit_prefixes(bits.shape[1])
        at_k, candidates = [], []
        for b in prefixes:
            # ±1 dot product = b − 2·Hamming distance: ranking by it is ranking by Hamming
            agreement = bits[:queries, :b] @ bits[:, :b].T + exclude_self
            ranked = np.argsort(-agreement, axis=1, kind="stable")
            at_k.append(neighbour_recall(ranked[:, : self.k], true))
            candidates.append(neighbour_recall(ranked[:, : self.k * self.rerank], true))
        metrics = {f"recall@{self.k}": at_k[-1], f"recall@{self.k}_in_top{self.k * self.rerank}": candidates[-1]}
        details = {
            "bits": prefixes,
            f"recall@{self.k}": at_k,
            f"recall@{self.k}_in_top{self.k * self.rerank}": candidates,
            "corpus_size": count,
        }
        if self.source:
            details["source"] = self.source
        plot = {
            "bits": prefixes,
            "curves": {f"Hamming top-{self.k}": at_k, f"Hamming top-{self.k * self.rerank}": candidates},
            "k": self.k,
        }
        return TaskResult(self.name, self.kind, metrics, f"recall@{self.k}", queries, details=details, plot=plot)
