"""Training utilities: schedules, callbacks."""

from keras_sentemb.training.nan_guard import NaNGuard
from keras_sentemb.training.sts_evaluator import STSEvaluator
from keras_sentemb.training.teacher_vectors import cached_teacher_vectors
from keras_sentemb.training.temperature_schedule import TemperatureSchedule
from keras_sentemb.training.warmup_schedule import LinearWarmupLinearDecay

__all__ = ["LinearWarmupLinearDecay", "NaNGuard", "STSEvaluator", "TemperatureSchedule",
           "cached_teacher_vectors"]
