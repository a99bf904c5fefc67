"""What every trainable model of the package does the same way in `fit` and on save."""

import tensorflow as tf

from keras_sentemb.data.epoch_order import epoch_order_of
from keras_sentemb.utils.nan_guard import with_nan_guard


def first_replica_batch(batch):
    """One replica's part of a distributed batch (each `DistributedValues` replaced by its
    first local value); other values unchanged."""

    def local(value):
        if isinstance(value, tf.distribute.DistributedValues):
            return tf.distribute.get_strategy().experimental_local_results(value)[0]
        return value

    return tf.nest.map_structure(local, batch)


def multi_worker_logs(logs):
    """Under MultiWorkerMirroredStrategy with several workers, each scalar log becomes a
    [1] tensor: Keras 3 (3.15) reduces the step's logs with `strategy.reduce("MEAN", v,
    axis=0)` there, which fails on scalars (tensorflow/tensorflow#72388); the reduced
    value is the same scalar mean over replicas. Elsewhere `logs` is returned as is."""

    strategy = tf.distribute.get_strategy()
    if not (
        isinstance(strategy, tf.distribute.MultiWorkerMirroredStrategy) and strategy.extended._in_multi_worker_mode()
    ):
        return logs
    return {
        key: tf.reshape(value, [1]) if getattr(value, "shape", None) == () else value for key, value in logs.items()
    }


def build_optimizer(model):
    """Creates the optimizer's slots for the model's trainable variables before `fit`.

    Without a tf.distribute strategy Keras 3 (3.15) defers this to the first trace of the
    train step; a `tf.function` that creates variables is traced twice, so every `fit`
    paid the train step's tracing (10–20 s for MiniLM on 2 cores) twice. Building first
    makes that trace the only one. A no-op when the model is not compiled, not built, or
    the optimizer already has its slots.
    """
    optimizer = getattr(model, "optimizer", None)
    if optimizer is None or optimizer.built or not model.built or not model.trainable_variables:
        return
    with model.distribute_strategy.scope():
        optimizer.build(model.trainable_variables)


class PipelineTraining:
    """Mixin (before `keras.Model`) for models trained on this package's tf.data pipelines.

    - `fit` adds a `NaNGuard` unless the callbacks hold one, and does not ask Keras to
      shuffle: the pipelines shuffle themselves (Keras would only warn that it cannot).
    - `fit` works under MultiWorkerMirroredStrategy, which Keras 3.15 alone does not
      manage: the model is built from one replica's batch (Keras would all-reduce the
      nested feature dicts) and the step's scalar logs are reduced as [1] tensors.
    - The model is saved uncompiled (`get_compile_config` → None): its `compile` picks
      the defaults again, and loading never half-restores a training setup (Keras cannot
      restore the compile arguments of a model with its own `compile` anyway).
    """

    def fit(self, *args, callbacks=None, **kwargs):
        """`keras.Model.fit`, with a `NaNGuard` added unless `callbacks` hold one, and the
        pipeline's `EpochOrder` followed (so a run resumed by `BackupAndRestore` sees the
        batches an uninterrupted run sees)."""
        kwargs.setdefault("shuffle", False)
        build_optimizer(self)
        callbacks = with_nan_guard(callbacks)
        order = epoch_order_of(args[0] if args else kwargs.get("x"))
        if order is not None and not any(getattr(c, "order", None) is order for c in callbacks):
            callbacks = [order.callback, *callbacks]
        return super().fit(*args, callbacks=callbacks, **kwargs)

    def train_step(self, data):
        return multi_worker_logs(super().train_step(data))

    def test_step(self, data):
        return multi_worker_logs(super().test_step(data))

    def _maybe_symbolic_build(self, iterator=None, data_batch=None):
        # Overrides keras' TF trainer (private API, keras >= 3.x < 4): take the first
        # batch's local values instead of `strategy.reduce("MEAN", batch)`.
        if iterator is not None and getattr(self, "_distribute_strategy", None) is not None:
            for _, _, batches in iterator:
                with self.distribute_strategy.scope():
                    data_batch = first_replica_batch(next(batches))
                break
            iterator = None
        return super()._maybe_symbolic_build(iterator=iterator, data_batch=data_batch)

    def get_compile_config(self):
        return None
