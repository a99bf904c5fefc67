"""A shuffle order that depends on (seed, epoch) only, so a resumed `fit` sees the same
batches as an uninterrupted one.

`tf.data`'s own `shuffle(seed=s, reshuffle_each_iteration=True)` draws epoch e's order from a
generator that advances once per iteration *of this process*: a run resumed at epoch 3
(`keras.callbacks.BackupAndRestore`) gets epoch 0's order again, and its weights drift from
the uninterrupted run's. Here the order of epoch e is a pure function of `(seed, e)`:

    order_e = shuffle(examples, seed = seed · 1,000,003 + e)

and `fit` tells the pipeline which epoch it is (`FollowEpochs`, added by our models' `fit`).
Until something sets the epoch, each new pass over the data takes the next epoch by itself
(a custom loop or a plain `keras.Model.fit` still gets a fresh order every pass).
Resuming from the backup of epoch e−1 then replays epoch e exactly: same batches, same
step numbers, the same final weights (tests/training/test_resume_after_kill.py).

>>> import tensorflow as tf
>>> order = EpochOrder(seed=7)
>>> data = order.shuffled(tf.data.Dataset.range(5), buffer_size=5)
>>> order.set_epoch(1); first = list(data.as_numpy_iterator())
>>> order.set_epoch(0); _ = list(data.as_numpy_iterator())
>>> order.set_epoch(1); list(data.as_numpy_iterator()) == first
True
"""

import keras
import numpy as np
import tensorflow as tf

_EPOCH_STRIDE = 1_000_003  # a prime: (seed, epoch) pairs map to distinct shuffle seeds


class EpochOrder:
    """The epoch a pipeline is shuffled for, set by `fit` through `FollowEpochs`."""

    def __init__(self, seed=0):
        self.seed = int(seed)
        self.epoch = 0
        self.followed = False  # True once `set_epoch` has been called: no more self-advancing

    def set_epoch(self, epoch):
        self.epoch = int(epoch)
        self.followed = True

    def _next_seed(self):
        epoch = self.epoch
        if not self.followed:
            self.epoch += 1
        return np.int64(self.seed * _EPOCH_STRIDE + epoch)

    def _shuffle_seed(self):
        # A py_function, not a tf.Variable: a variable created under a distribution
        # strategy's scope would be mirrored, and tf.data could not read it.
        return tf.py_function(self._next_seed, [], tf.int64)

    def shuffled(self, dataset, buffer_size):
        """`dataset` in the order of the current epoch (the epoch is read each time an
        iterator starts): each block of `buffer_size` consecutive elements is permuted by
        sorting on keys drawn statelessly from (epoch seed, element index). A dataset no
        longer than `buffer_size` gets a uniform random permutation.

        (`Dataset.shuffle` cannot take this seed: it mixes a tensor seed with Keras' global
        seed in Python and fails when that global seed is 0.)
        """

        def one_epoch(_):
            seed = tf.reshape(self._shuffle_seed(), [])

            def keyed(index, element):
                return tf.random.stateless_uniform([], seed=tf.stack([seed, index])), element

            def permuted(keys, elements):
                order = tf.argsort(keys)
                return tf.nest.map_structure(lambda column: tf.gather(column, order), elements)

            blocks = dataset.enumerate().map(keyed).batch(buffer_size)
            return blocks.map(permuted).unbatch()

        return tf.data.Dataset.from_tensors(0).flat_map(one_epoch)

    @property
    def callback(self):
        """The Keras callback that keeps this order in step with `fit`'s epochs."""
        return FollowEpochs(self)


class FollowEpochs(keras.callbacks.Callback):
    """Sets an `EpochOrder` to each epoch as `fit` begins it (after `BackupAndRestore` has
    moved the start to the resumed epoch)."""

    def __init__(self, order):
        super().__init__()
        self.order = order

    def on_epoch_begin(self, epoch, logs=None):
        self.order.set_epoch(epoch)


def epoch_order_of(dataset):
    """The `EpochOrder` a pipeline of ours carries (`dataset.epoch_order`), or None."""
    return getattr(dataset, "epoch_order", None)


def carry_epoch_order(source, dataset):
    """`dataset` (made from `source` by a transformation) with `source`'s `EpochOrder`."""
    order = epoch_order_of(source)
    if order is not None:
        dataset.epoch_order = order
    return dataset
