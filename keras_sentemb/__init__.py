"""keras-sentemb: sentence embeddings for Keras 3 and TensorFlow.

    >>> import keras_sentemb                                    # doctest: +SKIP
    >>> encoder = keras_sentemb.SentenceEncoder.from_pretrained("minilm-l6")  # doctest: +SKIP
    >>> vectors = encoder.encode(["A cat sits.", "A dog runs."])  # doctest: +SKIP
"""

import os

# Keras 3 picks its backend at import time; this toolkit needs TensorFlow (TF Text ops,
# SavedModel export). A user's explicit KERAS_BACKEND is respected and checked below.
os.environ.setdefault("KERAS_BACKEND", "tensorflow")

import keras  # noqa: E402

if keras.config.backend() != "tensorflow":
    raise ImportError(
        "keras-sentemb needs the TensorFlow backend of Keras 3, but Keras is using "
        f"{keras.config.backend()!r}. Set KERAS_BACKEND=tensorflow before importing keras."
    )

from keras_sentemb import layers  # noqa: E402
from keras_sentemb import models  # noqa: E402
from keras_sentemb.encoders import SentenceTokenizer  # noqa: E402
from keras_sentemb.layers import SiamesePooler  # noqa: E402
from keras_sentemb.models import SentenceEncoder  # noqa: E402
from keras_sentemb.version import __version__  # noqa: E402

__all__ = [
    "SentenceEncoder",
    "SentenceTokenizer",
    "SiamesePooler",
    "__version__",
    "layers",
    "models",
]
