"""A `fit` killed with SIGKILL resumes from its BackupAndRestore backup, not from scratch."""

import os
import signal
import subprocess
import sys
import textwrap
import time

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

SCRIPT = textwrap.dedent(
    """
    import os, sys, time
    import keras
    from keras_sentemb.data.examples import ScoredPairs
    from keras_sentemb.data.pipelines import examples_dataset
    from keras_sentemb.models import SBERT
    from tests.conftest import make_tiny_encoder

    backup, log = sys.argv[1], sys.argv[2]
    pairs = ScoredPairs(["the cat sat", "a dog ran", "rain"], ["a cat", "the dog", "oven"], [4.0, 3.5, 0.5])
    encoder = make_tiny_encoder(seed=11)
    sbert = SBERT(encoder, "regression")
    sbert.compile(optimizer="adam")

    class Log(keras.callbacks.Callback):
        def on_epoch_end(self, epoch, logs=None):
            with open(log, "a") as f:
                f.write(f"{os.getpid()} {epoch}\\n")
            time.sleep(0.4)

    sbert.fit(examples_dataset(pairs, encoder.tokenizer, batch_size=3), epochs=8, verbose=0,
              callbacks=[keras.callbacks.BackupAndRestore(backup), Log()])
    """
)


def read_log(path):
    if not os.path.exists(path):
        return []
    with open(path) as f:
        return [tuple(int(x) for x in line.split()) for line in f if line.strip()]


def test_killed_fit_resumes_from_the_last_backed_up_epoch(tmp_path):
    backup, log = str(tmp_path / "backup"), str(tmp_path / "epochs.log")
    command = [sys.executable, "-c", SCRIPT, backup, log]
    env = {**os.environ, "PYTHONPATH": REPO}
    first = subprocess.Popen(command, env=env, cwd=REPO)
    deadline = time.time() + 240
    while len(read_log(log)) < 3 and time.time() < deadline and first.poll() is None:
        time.sleep(0.1)
    first.send_signal(signal.SIGKILL)
    first.wait()
    done_before_kill = [epoch for _, epoch in read_log(log)]
    assert len(done_before_kill) >= 3 and max(done_before_kill) < 7

    subprocess.run(command, env=env, cwd=REPO, check=True, timeout=300)
    second_run = [epoch for pid, epoch in read_log(log) if pid != first.pid]
    assert second_run[0] >= 2, second_run  # resumed, not restarted at epoch 0
    assert second_run[0] <= max(done_before_kill) + 1
    assert second_run[-1] == 7
    assert not os.path.exists(backup) or not os.listdir(backup)  # deleted after a clean finish
