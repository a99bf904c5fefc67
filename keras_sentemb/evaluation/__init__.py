"""Evaluation: STS correlation and nearest-neighbour recall (probes and reports come later)."""

from keras_sentemb.evaluation.neighbour_recall import neighbour_recall
from keras_sentemb.evaluation.sts import cosine_scores, sts_spearman

__all__ = ["cosine_scores", "neighbour_recall", "sts_spearman"]
