"""A `fit` killed with SIGKILL resumes from its BackupAndRestore backup, not from scratch,
and ends with the weights of a run that was never interrupted."""

import os
import signal
import subprocess
import sys
import textwrap
import time

import numpy as np

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

SCRIPT = textwrap.dedent(
    """
    import os, sys, time
    import keras
    import numpy as np
    from tests.training.test_resume_after_kill import train

    backup, log, weights = sys.argv[1], sys.argv[2], sys.argv[3]

    class Log(keras.callbacks.Callback):
        def on_epoch_end(self, epoch, logs=None):
            with open(log, "a") as f:
                f.write(f"{os.getpid()} {epoch}\\n")
            time.sleep(0.4)

    model = train([keras.callbacks.BackupAndRestore(backup), Log()])
    np.savez(weights, *[w.numpy() for w in model.weights])
    """
)
EPOCHS = 8


def train(callbacks):
    """BiLSTM-SRA distilled on 8 sentences for `EPOCHS` epochs of 2 batches (seeded)."""
    import keras

    from keras_sentemb.data.pipelines import sentence_targets_dataset
    from keras_sentemb.losses import SRALoss
    from keras_sentemb.models import BiLSTMSRA
    from tests.conftest import make_tiny_word_vectors

    sentences = [
        "the cat sat",
        "a dog ran",
        "the mat",
        "a cat ran fast",
        "the dog is on the mat",
        "do n't",
        "the cat is fast",
        "a dog sat on a mat",
    ]
    keras.utils.set_random_seed(12)
    model = BiLSTMSRA.from_word_vectors(make_tiny_word_vectors(), teacher_dim=5, units=4)
    model.compile(optimizer=keras.optimizers.Adam(5e-2), loss=SRALoss())
    teacher = np.random.default_rng(12).normal(size=(len(sentences), 5)).astype("float32")
    data = sentence_targets_dataset(sentences, teacher, model.tokenizer, batch_size=4, shuffle=False)
    model.fit(data, epochs=EPOCHS, verbose=0, callbacks=callbacks)
    return model


def read_log(path):
    if not os.path.exists(path):
        return []
    with open(path) as f:
        return [tuple(int(x) for x in line.split()) for line in f if line.strip()]


def test_killed_fit_resumes_from_the_last_backed_up_epoch_and_ends_as_an_uninterrupted_run(tmp_path):
    backup, log, weights = str(tmp_path / "backup"), str(tmp_path / "epochs.log"), str(tmp_path / "w.npz")
    command = [sys.executable, "-c", SCRIPT, backup, log, weights]
    env = {**os.environ, "PYTHONPATH": REPO}
    first = subprocess.Popen(command, env=env, cwd=REPO)
    uninterrupted = [w.numpy() for w in train([]).weights]  # meanwhile, here
    deadline = time.time() + 240
    while len(read_log(log)) < 3 and time.time() < deadline and first.poll() is None:
        time.sleep(0.05)
    first.send_signal(signal.SIGKILL)
    first.wait()
    done_before_kill = [epoch for _, epoch in read_log(log)]
    assert len(done_before_kill) >= 3 and max(done_before_kill) < EPOCHS - 1

    subprocess.run(command, env=env, cwd=REPO, check=True, timeout=300)
    second_run = [epoch for pid, epoch in read_log(log) if pid != first.pid]
    assert second_run[0] >= 2, second_run  # resumed, not restarted at epoch 0
    assert second_run[0] <= max(done_before_kill) + 1
    assert second_run[-1] == EPOCHS - 1
    assert not os.path.exists(backup) or not os.listdir(backup)  # deleted after a clean finish
    resumed = np.load(weights)
    assert len(resumed.files) == len(uninterrupted)
    for index, want in enumerate(uninterrupted):
        np.testing.assert_allclose(resumed[f"arr_{index}"], want, rtol=1e-5, atol=1e-6)
