"""The `keras-sentemb` console script, outside the package on purpose.

Importing `keras_sentemb` imports TensorFlow, which writes start-up lines to the process's
standard error before Python can intervene: "Could not find cuda drivers", "All log messages
before absl::InitializeLog()", "failed call to cuInit", CPU-feature notes, "oneDNN custom
operations are on" (CPUs with AVX-512). On a CPU machine they are noise that reads like failure.
This launcher runs before the package: it sets `TF_CPP_MIN_LOG_LEVEL=3` (unless the user set it:
`TF_CPP_MIN_LOG_LEVEL=0 keras-sentemb …` shows TensorFlow's own log again) and imports the command
line with file descriptor 2 captured, writing back every captured line except the known start-up
noise.
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
def start_up_noise_filtered(stream_fd=2):
    """Runs the block with `stream_fd` captured, then writes back what is not START_UP_NOISE."""
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
            kept = [
                line for line in captured.read().splitlines(keepends=True) if not START_UP_NOISE.match(line.rstrip())
            ]
            if kept:
                os.write(stream_fd, b"".join(kept))


def main():
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
    with start_up_noise_filtered():
        from keras_sentemb.apps.cli import main as command_line

    return command_line()


if __name__ == "__main__":
    sys.exit(main())
