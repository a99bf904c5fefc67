"""TemperatureSchedule: exponential decay of the SemanticHashing temperature τ."""

import math

import keras

from keras_sentemb.layers.semantic_hashing import SemanticHashing


class TemperatureSchedule(keras.callbacks.Callback):
    """Before every training step t sets τ_t = τ_0 · (τ_T / τ_0)^(min(t, T) / T).

    That is τ_0 · exp(−λ t) with λ = ln(τ_0 / τ_T) / T: τ starts at `initial_temperature`
    (1 in InferLite) and decays exponentially towards 0, reaching `final_temperature`
    after T = `total_steps` steps and staying there. t is the optimizer's step counter,
    so a run resumed by `BackupAndRestore` continues the schedule where it stopped.

    Args:
        initial_temperature, final_temperature: τ_0 > τ_T > 0.
        total_steps: T; None = all the steps of the `fit` call (steps × epochs).
        layers: the `SemanticHashing` layers to drive; None = every one in the model.

    Example:
    (Not run as a doctest: it needs a trained model or data from the surrounding text.)
        model.fit(x, y, epochs=5, callbacks=[TemperatureSchedule(final_temperature=0.05)])
    """

    def __init__(self, initial_temperature=1.0, final_temperature=0.05, total_steps=None, layers=None):
        super().__init__()
        if not initial_temperature > final_temperature > 0:
            raise ValueError(
                "need initial_temperature > final_temperature > 0, got "
                f"{initial_temperature!r} and {final_temperature!r}"
            )
        if total_steps is not None and (not isinstance(total_steps, int) or total_steps < 1):
            raise ValueError(f"total_steps must be a positive int or None, got {total_steps!r}")
        self.initial_temperature = float(initial_temperature)
        self.final_temperature = float(final_temperature)
        self.total_steps = total_steps
        self.layers = list(layers) if layers is not None else None
        self._steps = None

    def temperature(self, step):
        """τ at optimizer step `step`."""
        fraction = min(step, self._steps) / self._steps
        return self.initial_temperature * math.exp(
            fraction * math.log(self.final_temperature / self.initial_temperature)
        )

    def on_train_begin(self, logs=None):
        if self.layers is None:
            self.layers = [layer for layer in self.model._flatten_layers() if isinstance(layer, SemanticHashing)]
        if not self.layers:
            raise ValueError("TemperatureSchedule: the model has no SemanticHashing layer to drive")
        steps = self.total_steps
        if steps is None:
            if not self.params.get("steps") or not self.params.get("epochs"):
                raise ValueError("TemperatureSchedule cannot tell the number of steps of this fit; pass total_steps=")
            steps = self.params["steps"] * self.params["epochs"]
        self._steps = steps

    def on_train_batch_begin(self, batch, logs=None):
        tau = self.temperature(int(self.model.optimizer.iterations.numpy()))
        for layer in self.layers:
            layer.temperature.assign(tau)

    def on_epoch_end(self, epoch, logs=None):
        if logs is not None and self.layers:
            logs["temperature"] = float(self.layers[0].temperature.numpy())
