"""The `keras-sentemb` console script, outside the package on purpose: it runs before the package
is imported, so it can set `TF_CPP_MIN_LOG_LEVEL=3` (unless the user set it:
`TF_CPP_MIN_LOG_LEVEL=0 keras-sentemb …` shows TensorFlow's own log again) before TensorFlow reads
it. TensorFlow's start-up lines that ignore that setting are dropped by the package itself
(`keras_sentemb.tensorflow_start`, around its import of TensorFlow).

`keras-sentemb serve …` goes straight to the server's own command line (`server.serve_command.main`): the
same options, without importing what the other commands need, so an exported OpenVINO folder is served by
a process that never imports TensorFlow.
"""

import os
import sys


def main():
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
    if sys.argv[1:2] == ["serve"]:
        from keras_sentemb.server.serve_command import main as serve_command

        return serve_command(sys.argv[2:])
    from keras_sentemb.apps.cli import main as command_line

    return command_line()


if __name__ == "__main__":
    sys.exit(main())
