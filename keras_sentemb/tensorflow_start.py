"""TensorFlow and Keras 3 started as keras-sentemb needs them: once a process, quietly, on the TensorFlow backend.

Every subpackage that builds or runs Keras models (`models`, `layers`, `losses`, `training`, `export`,
`families`, `pretrained`, `evaluation`, `tokenizers`' in-graph tokenizers …) imports this module first;
`import keras_sentemb` itself does not, so a process that only serves an exported OpenVINO folder
(`keras_sentemb.server`, `keras_sentemb.exported`) never loads TensorFlow (0.9 GB before any work).

What it does, once: `KERAS_BACKEND` defaults to "tensorflow" (a user's explicit choice is respected and
checked: another backend is an ImportError naming it), and Keras and TensorFlow are imported inside
`start_up_noise_filtered`, with TensorFlow's device lookup (its "failed call to cuInit" on a machine
without CUDA) made there too, so none of their start-up lines reaches the user.
"""

import os

os.environ.setdefault("KERAS_BACKEND", "tensorflow")

from keras_sentemb.utils.start_up_noise import start_up_noise_filtered  # noqa: E402

with start_up_noise_filtered():
    import keras

    if keras.config.backend() != "tensorflow":
        raise ImportError(
            "keras-sentemb needs the TensorFlow backend of Keras 3, but Keras is using "
            f"{keras.config.backend()!r}. Set KERAS_BACKEND=tensorflow before importing keras."
        )
    import tensorflow

    # TensorFlow finds its devices at the first op; asked here, its "failed call to cuInit" is written
    # inside the filter, not later in the middle of a user's output.
    tensorflow.config.list_physical_devices("GPU")
