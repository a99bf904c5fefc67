"""Evaluation: STS correlation (classification probes and retrieval metrics come later)."""

from keras_sentemb.evaluation.sts import cosine_scores, sts_spearman

__all__ = ["cosine_scores", "sts_spearman"]
