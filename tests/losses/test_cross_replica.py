"""gather_across_replicas: on one device the tensors come back unchanged at offset 0;
under MirroredStrategy with two CPU replicas each replica sees the global batch, replica
0's rows first, and its own offset into it."""

import json
import os
import subprocess
import sys
import textwrap

import numpy as np

from keras_sentemb.losses.cross_replica import gather_across_replicas, replica_context

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def test_one_device_returns_the_tensors_unchanged():
    x, y = np.arange(6.0).reshape(3, 2), np.ones((3, 4))
    (gx, gy), offset = gather_across_replicas(x, y)
    assert replica_context() is None
    assert offset == 0 and gx is x and gy is y


TWO_REPLICAS = textwrap.dedent(
    """
    import json
    import tensorflow as tf
    cpu = tf.config.list_physical_devices("CPU")[0]
    tf.config.set_logical_device_configuration(cpu, [tf.config.LogicalDeviceConfiguration()] * 2)
    from keras_sentemb.losses.cross_replica import gather_across_replicas
    strategy = tf.distribute.MirroredStrategy(["/cpu:0", "/cpu:1"])
    def step(context_rows):
        (gathered,), offset = gather_across_replicas(context_rows)
        return gathered, offset
    local = strategy.experimental_distribute_values_from_function(
        lambda ctx: tf.fill([ctx.replica_id_in_sync_group + 1, 2], float(ctx.replica_id_in_sync_group))
    )
    gathered, offsets = strategy.run(tf.function(step), args=(local,))
    print(json.dumps({
        "gathered": [v.numpy().tolist() for v in strategy.experimental_local_results(gathered)],
        "offsets": [int(v) for v in strategy.experimental_local_results(offsets)],
    }))
    """
)


def test_two_replicas_see_the_global_batch_and_their_own_offset():
    env = {**os.environ, "PYTHONPATH": REPO, "TF_CPP_MIN_LOG_LEVEL": "3"}
    out = subprocess.run([sys.executable, "-c", TWO_REPLICAS], env=env, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr[-3000:]
    result = json.loads(out.stdout.strip().splitlines()[-1])
    global_batch = [[0.0, 0.0], [1.0, 1.0], [1.0, 1.0]]  # replica 0 has one row, replica 1 two
    assert result["gathered"] == [global_batch, global_batch]
    assert result["offsets"] == [0, 1]
