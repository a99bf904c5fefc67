"""Evaluation: STS correlations, pair similarities by name, pair classification, triplet
accuracy, retrieval metrics and nearest-neighbour recall (probes and reports come later)."""

from keras_sentemb.evaluation.neighbour_recall import neighbour_recall
from keras_sentemb.evaluation.pair_classification import (
    accuracy_and_f1,
    best_threshold,
    threshold_accuracy_and_f1,
    triplet_accuracy,
)
from keras_sentemb.evaluation.pair_similarity import SIMILARITIES, pair_similarity
from keras_sentemb.evaluation.retrieval_metrics import mrr_at_k, ndcg_at_k, recall_at_k
from keras_sentemb.evaluation.sts import correlations, cosine_scores, sts_spearman

__all__ = [
    "SIMILARITIES", "accuracy_and_f1", "best_threshold", "correlations", "cosine_scores",
    "mrr_at_k", "ndcg_at_k", "neighbour_recall", "pair_similarity", "recall_at_k",
    "sts_spearman", "threshold_accuracy_and_f1", "triplet_accuracy",
]
