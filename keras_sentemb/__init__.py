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

from keras_sentemb.utils.start_up_noise import start_up_noise_filtered  # noqa: E402

# TensorFlow's start-up lines (no CUDA, cuInit, CPU features) are noise on a CPU machine: dropped.
with start_up_noise_filtered():
    import keras

    if keras.config.backend() != "tensorflow":
        raise ImportError(
            "keras-sentemb needs the TensorFlow backend of Keras 3, but Keras is using "
            f"{keras.config.backend()!r}. Set KERAS_BACKEND=tensorflow before importing keras."
        )
    # TensorFlow finds its devices at the first op; asked here, its "failed call to cuInit" (a machine
    # without CUDA) is written inside the filter, not later in the middle of a user's output.
    import tensorflow

    tensorflow.config.list_physical_devices("GPU")

    from keras_sentemb import backbones, layers, losses, models, pretrained, zoo
    from keras_sentemb.export import export_saved_model
    from keras_sentemb.layers import GatedConvFusion, PairFeatureHead, SemanticHashing, SiamesePooler
    from keras_sentemb.models import (
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
    from keras_sentemb.tokenizers import SentenceTokenizer, WordTokenizer
    from keras_sentemb.training import distill_hashed_encoder
    from keras_sentemb.version import __version__
    from keras_sentemb.zoo import load_sentence_encoder

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
