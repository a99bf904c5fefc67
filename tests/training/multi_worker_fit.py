"""One worker of a MultiWorkerMirroredStrategy run: `python -m tests.training.multi_worker_fit
CASE OUTPUT.json`, with TF_CONFIG set by the caller. Writes the case's per-batch losses."""

import json
import sys

import tensorflow as tf


def main(case, output):
    # The strategy must exist before any other TensorFlow op runs in this process.
    strategy = tf.distribute.MultiWorkerMirroredStrategy()
    from tests.training import replica_cases

    with strategy.scope():
        losses = replica_cases.loss_trajectory(case)
    with open(output, "w") as f:
        json.dump({"replicas": strategy.num_replicas_in_sync, "losses": losses}, f)


if __name__ == "__main__":
    main(*sys.argv[1:])
