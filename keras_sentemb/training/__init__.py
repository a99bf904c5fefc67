"""Procedures that train models (never model classes): schedules, callbacks, distillation of
binary codes, teacher caches, model soups, hard negatives, query rounds and a retrieval dev evaluator."""

import keras_sentemb.tensorflow_start  # noqa: F401  (TensorFlow started quietly, before any Keras import)
from keras_sentemb.training.code_distillation import corpus_pairs, distill_code, distill_hashed_encoder
from keras_sentemb.training.exact_backup import ExactBackupAndRestore
from keras_sentemb.training.hard_negatives import MinedTriplets, mine_hard_negatives
from keras_sentemb.training.model_soup import load_soup, soup_weights
from keras_sentemb.training.query_rounds import query_rounds
from keras_sentemb.training.retrieval_evaluator import RetrievalEvaluator
from keras_sentemb.training.splade_regularizer_warmup import SpladeRegularizerWarmup
from keras_sentemb.training.sts_evaluator import STSEvaluator
from keras_sentemb.training.teacher_logits import cached_teacher_logits
from keras_sentemb.training.teacher_vectors import cached_teacher_vectors
from keras_sentemb.training.temperature_schedule import TemperatureSchedule
from keras_sentemb.training.training_clock import TrainingClock
from keras_sentemb.training.warmup_schedule import LinearWarmupLinearDecay
from keras_sentemb.utils.nan_guard import NaNGuard

__all__ = [
    "ExactBackupAndRestore",
    "LinearWarmupLinearDecay",
    "MinedTriplets",
    "NaNGuard",
    "RetrievalEvaluator",
    "STSEvaluator",
    "SpladeRegularizerWarmup",
    "TemperatureSchedule",
    "TrainingClock",
    "cached_teacher_logits",
    "cached_teacher_vectors",
    "corpus_pairs",
    "distill_code",
    "distill_hashed_encoder",
    "load_soup",
    "mine_hard_negatives",
    "query_rounds",
    "soup_weights",
]
