"""TensorFlow's start-up lines on a CPU machine, filtered out of standard error.

Importing TensorFlow (and the libraries built on it: TF Text, keras-hub) writes lines to the
process's standard error before Python can intervene and whatever `TF_CPP_MIN_LOG_LEVEL` says:
"Could not find cuda drivers", "All log messages before absl::InitializeLog()", "failed call to
cuInit", CPU-feature notes, "oneDNN custom operations are on" (CPUs with AVX-512). On a CPU machine
they are noise that reads like failure. `start_up_noise_filtered()` runs a block with file
descriptor 2 captured, then writes back every captured line except `START_UP_NOISE`: nothing
else is dropped, and what was written is written back even when the block fails.
`keras_sentemb/__init__.py` imports TensorFlow inside it, so `import keras_sentemb` (the console
script, `make run`, a user's script) is quiet; `TF_CPP_MIN_LOG_LEVEL=0` shows the lines again.
`without_start_up_noise(bytes)` filters what a child process wrote (one that imports TensorFlow alone).

>>> import os
>>> with start_up_noise_filtered():
...     _ = os.write(2, b"I0000 00:00:1795563656.415262 3418 cudart_stub.cc:31] Could not find cuda drivers\\n")
"""

import contextlib
import os
import re
import sys
import tempfile

# Lines TensorFlow prints while it loads on a machine without CUDA; nothing else is dropped.
START_UP_NOISE = re.compile(
    rb"^(WARNING: All log messages before absl::InitializeLog\(\) is called are written to STDERR"
    rb"|[IWE]\d{4} [\d:. ]+\d+ (cudart_stub|cuda_executor|cuda_platform|cpu_feature_guard)\.cc:\d+\] .*"
    rb"|I\d{4} [\d:. ]+\d+ port\.cc:\d+\] oneDNN custom operations are on\. .*"
    rb"|To enable the following instructions: .* rebuild TensorFlow with the appropriate compiler flags\.)$"
)


@contextlib.contextmanager
def start_up_noise_filtered(stream_fd=2, noise=START_UP_NOISE):
    """Runs the block with `stream_fd` captured, then writes back the lines that `noise` (a bytes pattern, by
    default START_UP_NOISE) does not match. With `TF_CPP_MIN_LOG_LEVEL=0` in the environment it captures
    nothing (the user asked for TF's log)."""
    if os.environ.get("TF_CPP_MIN_LOG_LEVEL") == "0":
        yield
        return
    sys.stderr.flush()
    saved = os.dup(stream_fd)
    with tempfile.TemporaryFile() as captured:
        os.dup2(captured.fileno(), stream_fd)
        try:
            yield
        finally:
            sys.stderr.flush()
            os.dup2(saved, stream_fd)
            os.close(saved)
            captured.seek(0)
            kept = without_start_up_noise(captured.read(), noise)
            if kept:
                os.write(stream_fd, kept)


def without_start_up_noise(output, noise=START_UP_NOISE):
    """`output` (bytes a process wrote to standard error) without its `START_UP_NOISE` lines, e.g.
    of a child process that imports TensorFlow alone.

    >>> without_start_up_noise(b"I0000 00:00:1.5 7 cudart_stub.cc:31] Could not find cuda drivers\\nreal\\n")
    b'real\\n'
    """
    return b"".join(line for line in output.splitlines(keepends=True) if not noise.match(line.rstrip()))
