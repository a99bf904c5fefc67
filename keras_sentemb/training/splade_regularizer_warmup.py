"""SpladeRegularizerWarmup: SPLADE's FLOPS regularisers raised from 0 to their weights over the first steps."""

import keras

from keras_sentemb.losses.splade_loss import SpladeLoss
from keras_sentemb.utils.argument_checks import positive_int

SCHEDULES = ("quadratic", "linear")


class SpladeRegularizerWarmup(keras.callbacks.Callback):
    """Before every training step t sets the `SpladeLoss`'s `regularizer_scale` to

        r_t = min(1, t / W)²   ("quadratic")   or   min(1, t / W)   ("linear"),

    W = `warmup_ratio` × the fit's steps (at least 1), so that λ_q·r_t and λ_d·r_t grow from 0 to the loss's weights
    and the ranking loss shapes the vectors before sparsity is asked of them: sentence-transformers'
    `SpladeRegularizerWeightSchedulerCallback` (quadratic, a third of the steps), which its trainer adds to every
    SpladeLoss run. t is the optimizer's step counter, so a resumed run continues the schedule where it stopped.

    Args:
        loss: the `SpladeLoss` the model was compiled with.
        warmup_ratio: W as a fraction of the steps, in (0, 1].
        schedule: "quadratic" or "linear".
        total_steps: the steps of the run; None = those of the `fit` call (steps × epochs).

    Example:
    >>> warmup = SpladeRegularizerWarmup(SpladeLoss(), total_steps=30)
    >>> [round(warmup.scale(step), 3) for step in (0, 5, 10, 20)]
    [0.0, 0.25, 1.0, 1.0]
    """

    def __init__(self, loss, warmup_ratio=1 / 3, schedule="quadratic", total_steps=None):
        super().__init__()
        if not isinstance(loss, SpladeLoss):
            raise TypeError(f"SpladeRegularizerWarmup drives a SpladeLoss, got {type(loss).__name__}")
        if isinstance(warmup_ratio, bool) or not isinstance(warmup_ratio, (int, float)) or not 0 < warmup_ratio <= 1:
            raise ValueError(f"warmup_ratio must be in (0, 1], got {warmup_ratio!r}")
        if schedule not in SCHEDULES:
            raise ValueError(f"schedule must be one of {', '.join(SCHEDULES)}, got {schedule!r}")
        self.loss, self.warmup_ratio, self.schedule = loss, float(warmup_ratio), schedule
        self.total_steps = None if total_steps is None else positive_int(total_steps, "total_steps")
        self._warmup_steps = None if total_steps is None else max(1, int(self.total_steps * self.warmup_ratio))

    def scale(self, step):
        """r at optimizer step `step`."""
        ratio = min(1.0, step / self._warmup_steps)
        return ratio * ratio if self.schedule == "quadratic" else ratio

    def on_train_begin(self, logs=None):
        if self._warmup_steps is None:
            if not self.params.get("steps") or not self.params.get("epochs"):
                raise ValueError("SpladeRegularizerWarmup cannot tell the steps of this fit; pass total_steps=")
            self._warmup_steps = max(1, int(self.params["steps"] * self.params["epochs"] * self.warmup_ratio))

    def on_train_batch_begin(self, batch, logs=None):
        self.loss.regularizer_scale.assign(self.scale(int(self.model.optimizer.iterations.numpy())))

    def on_epoch_end(self, epoch, logs=None):
        if logs is not None:
            logs["regularizer_scale"] = float(self.loss.regularizer_scale.numpy())
