"""Linear warm-up then linear decay of the learning rate (SBERT: warm-up over 10 %)."""

import keras
from keras import ops


@keras.saving.register_keras_serializable(package="keras_sentemb")
class LinearWarmupLinearDecay(keras.optimizers.schedules.LearningRateSchedule):
    """lr(t) = peak · t / W for t < W, then peak · (T − t) / (T − W), floored at 0, with
    W = round(warmup_fraction · T) warm-up steps and T = total_steps.

    Example:
    >>> schedule = LinearWarmupLinearDecay(2e-5, total_steps=100, warmup_fraction=0.1)
    >>> [round(float(schedule(s)) * 1e5, 3) for s in (0, 5, 10, 55, 100)]
    [0.0, 1.0, 2.0, 1.0, 0.0]
    """

    def __init__(self, peak_learning_rate, total_steps, warmup_fraction=0.1):
        if total_steps < 1:
            raise ValueError(f"total_steps must be >= 1, got {total_steps}")
        if not 0.0 <= warmup_fraction < 1.0:
            raise ValueError(f"warmup_fraction must be in [0, 1), got {warmup_fraction}")
        self.peak_learning_rate = float(peak_learning_rate)
        self.total_steps = int(total_steps)
        self.warmup_fraction = float(warmup_fraction)
        self.warmup_steps = int(round(self.warmup_fraction * self.total_steps))

    def __call__(self, step):
        step = ops.cast(step, "float32")
        warmup = float(max(self.warmup_steps, 1))
        rising = self.peak_learning_rate * step / warmup
        falling = (
            self.peak_learning_rate * (self.total_steps - step) / float(max(self.total_steps - self.warmup_steps, 1))
        )
        rate = ops.where(step < self.warmup_steps, rising, falling)
        return ops.maximum(rate, 0.0)

    def get_config(self):
        return {
            "peak_learning_rate": self.peak_learning_rate,
            "total_steps": self.total_steps,
            "warmup_fraction": self.warmup_fraction,
        }
