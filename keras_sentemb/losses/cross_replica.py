"""Batch-level losses under tf.distribute: see the whole global batch, not one replica's slice."""

import keras
import tensorflow as tf


def replica_context():
    """The current `tf.distribute` replica context when more than one replica trains in
    sync (MirroredStrategy, MultiWorkerMirroredStrategy), else None."""
    if keras.backend.backend() != "tensorflow":
        return None

    context = tf.distribute.get_replica_context()
    if context is None or context.num_replicas_in_sync == 1:
        return None
    return context


def gather_across_replicas(*tensors):
    """All-gathers each tensor along axis 0 over the replicas training in sync.

    Returns `(gathered, offset)`: the tensors of the global batch (replica 0's rows
    first) and the index of this replica's first row in them. With one replica (no
    strategy, or one device) it returns the tensors unchanged and offset 0.

    Gradients flow back through the gather (TensorFlow's `all_gather` gradient sums the
    incoming gradients over replicas and hands each replica its own slice), so a loss
    that compares local rows with gathered columns — in-batch negatives — trains exactly
    as the same loss on one device with the global batch, where

        global loss = mean over replicas of the per-replica losses

    which is what Keras computes (each replica's loss is scaled by 1/R and the gradients
    are summed).

    Example (one device, nothing to gather):
    >>> import numpy as np
    >>> (x,), offset = gather_across_replicas(np.ones((2, 3)))
    >>> x.shape, offset
    ((2, 3), 0)
    """
    context = replica_context()
    if context is None:
        return tensors, 0

    # One all_gather per tensor: TensorFlow's gradient of a nested all_gather stacks the
    # incoming gradients, which fails when the tensors differ in shape.
    gathered = [context.all_gather(tensor, axis=0) for tensor in tensors]
    sizes = context.all_gather(tf.shape(tensors[0])[:1], axis=0)
    offset = tf.reduce_sum(sizes[: context.replica_id_in_sync_group])
    return tuple(gathered), offset
