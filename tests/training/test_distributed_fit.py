"""tf.distribute: every model's `fit` under MirroredStrategy (2 CPU replicas) and under
MultiWorkerMirroredStrategy (2 worker processes on loopback) logs the loss trajectory of
one device fed the same global batches."""

import json
import os
import socket
import subprocess
import sys
import textwrap

import numpy as np
import pytest

from tests.training import replica_cases

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
ENV = {**os.environ, "PYTHONPATH": REPO, "TF_CPP_MIN_LOG_LEVEL": "3", "KERAS_BACKEND": "tensorflow"}

# In the suite (its time budget): the losses that look across the batch (CoSENT and
# CodeSimilarityLoss here, MNRL in the multi-worker test).
# KERAS_SENTEMB_ALL_REPLICA_CASES=1 runs every case of replica_cases in both tests: + the
# SRA distillation, the NLI and classifier heads and the transformer models (SBERT mnrl / cosent /
# classification, CrossEncoder, DSE), about 10 minutes in all.
EVERY_CASE = os.environ.get("KERAS_SENTEMB_ALL_REPLICA_CASES") == "1"
MIRRORED_CASES = replica_cases.ALL_CASES if EVERY_CASE else ["word_cosent", "hashed_encoder"]
# in-batch negatives: each worker's anchors must see the other worker's positives
MULTI_WORKER_CASES = replica_cases.ALL_CASES if EVERY_CASE else ["word_mnrl"]


def largest_relative_difference(got, want):
    got, want = np.asarray(got), np.asarray(want)
    return float(np.max(np.abs(got - want) / np.maximum(np.abs(want), 1e-12)))


MIRRORED_SCRIPT = textwrap.dedent(
    """
    import json, sys
    import tensorflow as tf
    cpu = tf.config.list_physical_devices("CPU")[0]
    tf.config.set_logical_device_configuration(cpu, [tf.config.LogicalDeviceConfiguration()] * 2)
    from tests.training import replica_cases
    mirrored = tf.distribute.MirroredStrategy(["/cpu:0", "/cpu:1"])
    result = {"replicas": mirrored.num_replicas_in_sync}
    for case in sys.argv[1:]:
        one_device = replica_cases.loss_trajectory(case)
        with mirrored.scope():
            result[case] = [one_device, replica_cases.loss_trajectory(case)]
    print(json.dumps(result))
    """
)


def test_every_model_fits_under_mirrored_strategy_as_on_one_device():
    out = subprocess.run(
        [sys.executable, "-c", MIRRORED_SCRIPT, *MIRRORED_CASES],
        env=ENV,
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert out.returncode == 0, out.stderr[-3000:]
    result = json.loads(out.stdout.strip().splitlines()[-1])
    assert result.pop("replicas") == 2
    assert sorted(result) == sorted(MIRRORED_CASES)
    for case, (one_device, mirrored) in result.items():
        assert len(mirrored) == len(one_device) >= 4, case
        print(f"{case}: largest relative difference {largest_relative_difference(mirrored, one_device):.2g}")
        np.testing.assert_allclose(mirrored, one_device, rtol=2e-4, atol=1e-5, err_msg=case)


def free_ports(count):
    sockets = [socket.socket() for _ in range(count)]
    for s in sockets:
        s.bind(("127.0.0.1", 0))
    ports = [s.getsockname()[1] for s in sockets]
    for s in sockets:
        s.close()
    return ports


@pytest.mark.parametrize("case", MULTI_WORKER_CASES)
def test_two_workers_on_loopback_follow_the_one_worker_global_batch_trajectory(case, tmp_path):
    workers = [f"127.0.0.1:{port}" for port in free_ports(2)]
    processes = []
    for index in range(2):
        tf_config = {"cluster": {"worker": workers}, "task": {"type": "worker", "index": index}}
        processes.append(
            subprocess.Popen(
                [sys.executable, "-m", "tests.training.multi_worker_fit", case, str(tmp_path / f"w{index}.json")],
                env={**ENV, "TF_CONFIG": json.dumps(tf_config)},
                cwd=REPO,
                stdout=subprocess.PIPE,
                stderr=subprocess.STDOUT,
                text=True,
            )
        )
    try:
        one_worker = replica_cases.loss_trajectory(case)  # meanwhile, here: one worker, global batch
        logs = [p.communicate(timeout=400)[0] for p in processes]
    finally:
        for p in processes:
            p.kill()
    for index, (process, log) in enumerate(zip(processes, logs)):
        assert process.returncode == 0, log[-3000:]
        with open(tmp_path / f"w{index}.json") as f:
            worker = json.load(f)
        assert worker["replicas"] == 2
        assert len(worker["losses"]) == len(one_worker) == 4
        print(
            f"worker {index}: largest relative difference "
            f"{largest_relative_difference(worker['losses'], one_worker):.2g}"
        )
        np.testing.assert_allclose(worker["losses"], one_worker, rtol=2e-4, atol=1e-5)
