"""keras-sentemb: sentence embeddings for Keras 3 and TensorFlow.

(Not run as a doctest: it loads pretrained weights, which takes seconds; the tests run the same calls.)
    import keras_sentemb
    encoder = keras_sentemb.SentenceEncoder.from_pretrained("minilm-l6")
    vectors = encoder.encode(["A cat sits.", "A dog runs."])
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

from keras_sentemb import backbones, layers, losses, models, pretrained, zoo  # noqa: E402
from keras_sentemb.export import export_saved_model  # noqa: E402
from keras_sentemb.layers import GatedConvFusion, PairFeatureHead, SemanticHashing, SiamesePooler  # noqa: E402
from keras_sentemb.models import (  # noqa: E402
    DSE,
    SBERT,
    BiLSTMSRA,
    CrossEncoder,
    HashedEncoder,
    InferLite,
    SentenceClassifier,
    SentenceEncoder,
    StaticEncoder,
)
from keras_sentemb.tokenizers import SentenceTokenizer, WordTokenizer  # noqa: E402
from keras_sentemb.training import distill_hashed_encoder  # noqa: E402
from keras_sentemb.version import __version__  # noqa: E402
from keras_sentemb.zoo import load_sentence_encoder  # noqa: E402

__all__ = [
    "DSE",
    "SBERT",
    "BiLSTMSRA",
    "CrossEncoder",
    "GatedConvFusion",
    "HashedEncoder",
    "InferLite",
    "PairFeatureHead",
    "SemanticHashing",
    "SentenceClassifier",
    "SentenceEncoder",
    "SentenceTokenizer",
    "SiamesePooler",
    "StaticEncoder",
    "WordTokenizer",
    "__version__",
    "backbones",
    "distill_hashed_encoder",
    "export_saved_model",
    "layers",
    "load_sentence_encoder",
    "pretrained",
    "losses",
    "models",
    "zoo",
]
