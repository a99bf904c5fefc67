"""load_model: a `.keras` file saved from any keras-sentemb model, its classes registered first."""

import keras

import keras_sentemb.layers  # noqa: F401  (registers the layers a model file names)
import keras_sentemb.losses  # noqa: F401
from keras_sentemb.utils.checked_files import check_keras_file


def load_model(path, **kwargs) -> keras.Model:
    """`keras.saving.load_model(path, **kwargs)` once every keras-sentemb Keras class is registered (importing
    `keras_sentemb.models` registers them; `import keras_sentemb` alone imports no TensorFlow), after a check
    that `path` is a readable `.keras` archive (one-line errors that name it).

    (Not run as a doctest: it needs a saved model.)
        encoder = keras_sentemb.load_model("runs/minilm-stsb/encoder.keras")
    """
    return keras.saving.load_model(check_keras_file(path), **kwargs)
