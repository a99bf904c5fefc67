"""`import keras_sentemb` and so the `keras-sentemb` console script start quietly: TensorFlow's
start-up lines on a CPU machine (no CUDA drivers, cuInit, CPU features) are dropped; everything
else written to standard error reaches the user."""

import os
import subprocess
import sys

from keras_sentemb.utils.start_up_noise import start_up_noise_filtered


def test_start_up_noise_is_dropped_and_every_other_line_is_kept(capfd):
    with start_up_noise_filtered():
        os.write(2, b"WARNING: All log messages before absl::InitializeLog() is called are written to STDERR\n")
        os.write(
            2,
            b"I0000 00:00:1795563656.415262    3418 cudart_stub.cc:31] Could not find cuda drivers on your "
            b"machine, GPU will not be used.\n",
        )
        os.write(2, b"E0000 00:00:1795563677.486876    3444 cuda_platform.cc:52] failed call to cuInit: INTERNAL\n")
        os.write(
            2,
            b"I0000 00:00:1795626153.135081    8859 port.cc:153] oneDNN custom operations are on. You may see "
            b"slightly different numerical results due to floating-point round-off errors from different "
            b"computation orders. To turn them off, set the environment variable `TF_ENABLE_ONEDNN_OPTS=0`.\n",
        )
        os.write(2, b"a real warning\n")
        os.write(2, b"E0000 00:00:1795563677.486876    3444 some_op.cc:12] a real TensorFlow error\n")
    assert (
        capfd.readouterr().err
        == "a real warning\nE0000 00:00:1795563677.486876    3444 some_op.cc:12] a real TensorFlow error\n"
    )


def test_what_was_written_is_kept_when_the_block_fails(capfd):
    try:
        with start_up_noise_filtered():
            os.write(2, b"why the import failed\n")
            raise ImportError("no module")
    except ImportError:
        pass
    assert capfd.readouterr().err == "why the import failed\n"


def test_the_installed_command_prints_no_tensorflow_start_up_lines():
    script = os.path.join(os.path.dirname(sys.executable), "keras-sentemb")
    env = {k: v for k, v in os.environ.items() if k != "TF_CPP_MIN_LOG_LEVEL"}
    done = subprocess.run([script, "zoo", "list"], capture_output=True, text=True, env=env, timeout=120)
    assert done.returncode == 0 and "minilm-l6" in done.stdout
    assert done.stderr == ""


def test_importing_the_package_starts_no_tensorflow_and_its_api_starts_it_quietly():
    """What `make run` and a user's script see: `import keras_sentemb` imports no TensorFlow at all (a server of an
    exported model never loads it); the first public name that needs it starts it inside the filter, so
    TF_CPP_MIN_LOG_LEVEL's gaps and the first TensorFlow op after it ("failed call to cuInit") are quiet."""
    env = {k: v for k, v in os.environ.items() if k != "TF_CPP_MIN_LOG_LEVEL"}
    probe = (
        "import sys, keras_sentemb; assert 'tensorflow' not in sys.modules; keras_sentemb.SentenceEncoder;"
        "import tensorflow; tensorflow.constant(1); print(keras_sentemb.__version__)"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, env=env, timeout=120)
    assert done.returncode == 0 and done.stdout.strip(), done.stderr
    assert done.stderr == ""


def test_the_module_form_of_the_command_line_is_quiet_too(tmp_path):
    """`python -m keras_sentemb.apps.cli` imports the package before it can set TF_CPP_MIN_LOG_LEVEL."""
    env = {k: v for k, v in os.environ.items() if k != "TF_CPP_MIN_LOG_LEVEL"}
    done = subprocess.run(
        [sys.executable, "-m", "keras_sentemb.apps.cli", "zoo", "list"], capture_output=True, text=True, env=env
    )
    assert done.returncode == 0 and "minilm-l6" in done.stdout
    assert done.stderr == ""


def test_tf_cpp_min_log_level_0_shows_tensorflows_log_again():
    env = {**os.environ, "TF_CPP_MIN_LOG_LEVEL": "0"}
    done = subprocess.run(
        [sys.executable, "-c", "import keras_sentemb.models"], capture_output=True, text=True, env=env
    )
    assert done.returncode == 0 and "I0000" in done.stderr
