"""Evaluation: STS correlations, pair similarities by name, pair classification, triplet
accuracy, retrieval metrics, retrieval on BEIR folders the MTEB way (`evaluate_beir`: dense, BM25 and
their fusion chosen on dev, binary codes), nearest-neighbour recall, SentEval-style probes, NLI probes,
task folders (bring your own STS / classification files), reports (JSON + PNG + table)
and an MTEB adapter."""

import keras_sentemb.tensorflow_start  # noqa: F401  (TensorFlow started quietly, before any Keras import)
from keras_sentemb.evaluation.beir_retrieval import BeirRetrievalTask, RetrievalResult, evaluate_beir
from keras_sentemb.evaluation.builtin_tasks import TASK_NAMES, build_tasks
from keras_sentemb.evaluation.code_retrieval import CodeSearch
from keras_sentemb.evaluation.fusion_choice import choose_fusion
from keras_sentemb.evaluation.mteb_adapter import MTEBEncoder
from keras_sentemb.evaluation.neighbour_recall import neighbour_recall
from keras_sentemb.evaluation.pair_classification import (
    accuracy_and_f1,
    best_threshold,
    threshold_accuracy_and_f1,
    triplet_accuracy,
)
from keras_sentemb.evaluation.pair_similarity import SIMILARITIES, pair_similarity
from keras_sentemb.evaluation.probes import (
    C_VALUES,
    ProbeResult,
    cross_validated_probe,
    train_test_probe,
)
from keras_sentemb.evaluation.report import evaluate, format_table, write_report
from keras_sentemb.evaluation.retrieval_metrics import mrr_at_k, ndcg_at_k, recall_at_k
from keras_sentemb.evaluation.sts import correlations, cosine_scores, sts_spearman
from keras_sentemb.evaluation.task_files import read_classification_file, read_sts_file
from keras_sentemb.evaluation.tasks import (
    HashRecallTask,
    NLIProbeTask,
    PairClassificationTask,
    ProbeTask,
    STSTask,
    TaskResult,
    nli_pair_features,
)
from keras_sentemb.evaluation.trec_measures import mean_measures, trec_measures

__all__ = [
    "BeirRetrievalTask",
    "CodeSearch",
    "choose_fusion",
    "RetrievalResult",
    "evaluate_beir",
    "mean_measures",
    "trec_measures",
    "C_VALUES",
    "HashRecallTask",
    "MTEBEncoder",
    "NLIProbeTask",
    "PairClassificationTask",
    "ProbeResult",
    "ProbeTask",
    "SIMILARITIES",
    "STSTask",
    "TASK_NAMES",
    "TaskResult",
    "accuracy_and_f1",
    "best_threshold",
    "build_tasks",
    "correlations",
    "cosine_scores",
    "cross_validated_probe",
    "evaluate",
    "format_table",
    "mrr_at_k",
    "ndcg_at_k",
    "neighbour_recall",
    "nli_pair_features",
    "pair_similarity",
    "read_classification_file",
    "read_sts_file",
    "recall_at_k",
    "sts_spearman",
    "threshold_accuracy_and_f1",
    "train_test_probe",
    "triplet_accuracy",
    "write_report",
]
