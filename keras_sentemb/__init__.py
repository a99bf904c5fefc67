"""keras-sentemb: sentence embeddings for Keras 3 and TensorFlow.

(Not run as a doctest: it loads pretrained weights, which takes seconds; the tests run the same calls.)
    import keras_sentemb
    encoder = keras_sentemb.SentenceEncoder.from_pretrained("minilm-l6")
    vectors = encoder.encode(["A cat sits.", "A dog runs."])

`import keras_sentemb` imports no TensorFlow: each public name below is imported when first used, and the
subpackages that build Keras models start TensorFlow quietly then (`keras_sentemb.tensorflow_start`). So a
server of an exported OpenVINO folder (`keras-sentemb serve FOLDER`, `keras_sentemb.server`) runs without
TensorFlow in its process, or installed at all. A `.keras` file that holds keras-sentemb classes loads with
`keras_sentemb.load_model(path)` (or `keras.saving.load_model` once `keras_sentemb.models` is imported,
which registers the classes).
"""

import os

# Keras 3 picks its backend at import time; this toolkit needs TensorFlow (TF Text ops, SavedModel export).
# A user's explicit KERAS_BACKEND is respected, and checked when TensorFlow starts.
os.environ.setdefault("KERAS_BACKEND", "tensorflow")

from keras_sentemb.utils.lazy_names import lazy_names  # noqa: E402
from keras_sentemb.version import __version__  # noqa: E402, F401  (in __all__)

_SUBPACKAGES = ("backbones", "layers", "losses", "models", "pretrained", "zoo")
_MODELS = (
    "DSE",
    "SBERT",
    "BiLSTMSRA",
    "CrossEncoder",
    "HashedEncoder",
    "InferLite",
    "MultiVectorEncoder",
    "SentenceClassifier",
    "SentenceEncoder",
    "SparseEncoder",
    "StaticEncoder",
)
_LAYERS = ("GatedConvFusion", "PairFeatureHead", "SemanticHashing", "SiamesePooler")
_WHERE = {
    **{name: "" for name in _SUBPACKAGES},
    **{name: "keras_sentemb.models" for name in _MODELS},
    **{name: "keras_sentemb.layers" for name in _LAYERS},
    "SentenceTokenizer": "keras_sentemb.tokenizers",
    "WordTokenizer": "keras_sentemb.tokenizers",
    "export_saved_model": "keras_sentemb.export",
    "distill_hashed_encoder": "keras_sentemb.training",
    "load_sentence_encoder": "keras_sentemb.zoo",
    "load_model": "keras_sentemb.models",
}

__getattr__ = lazy_names(__name__, _WHERE)
__all__ = sorted([*_WHERE, "__version__"])


def __dir__():
    return __all__
