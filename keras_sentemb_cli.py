"""The `keras-sentemb` console script, outside the package on purpose: it runs before the package
is imported, so it can set `TF_CPP_MIN_LOG_LEVEL=3` (unless the user set it:
`TF_CPP_MIN_LOG_LEVEL=0 keras-sentemb …` shows TensorFlow's own log again) before TensorFlow reads
it. TensorFlow's start-up lines that ignore that setting are dropped by the package itself
(`keras_sentemb.utils.start_up_noise`, around its import of TensorFlow).
"""

import os
import sys


def main():
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
    from keras_sentemb.apps.cli import main as command_line

    return command_line()


if __name__ == "__main__":
    sys.exit(main())
