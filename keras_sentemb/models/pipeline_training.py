"""What every trainable model of the package does the same way in `fit` and on save."""

from keras_sentemb.training.nan_guard import with_nan_guard


class PipelineTraining:
    """Mixin (before `keras.Model`) for models trained on this package's tf.data pipelines.

    - `fit` adds a `NaNGuard` unless the callbacks hold one, and does not ask Keras to
      shuffle: the pipelines shuffle themselves (Keras would only warn that it cannot).
    - The model is saved uncompiled (`get_compile_config` → None): its `compile` picks
      the defaults again, and loading never half-restores a training setup (Keras cannot
      restore the compile arguments of a model with its own `compile` anyway).
    """

    def fit(self, *args, callbacks=None, **kwargs):
        """`keras.Model.fit`, with a `NaNGuard` added unless `callbacks` hold one."""
        kwargs.setdefault("shuffle", False)
        return super().fit(*args, callbacks=with_nan_guard(callbacks), **kwargs)

    def get_compile_config(self):
        return None
