"""Public Keras layers of keras-sentemb: one layer per file."""

import keras_sentemb.tensorflow_start  # noqa: F401  (TensorFlow started quietly, before any Keras import)
from keras_sentemb.layers.backbone_lora import enable_backbone_lora
from keras_sentemb.layers.gated_conv_fusion import GatedConvFusion
from keras_sentemb.layers.pair_feature_head import PAIR_FEATURES, PairFeatureHead
from keras_sentemb.layers.semantic_hashing import SemanticHashing
from keras_sentemb.layers.siamese_pooler import POOLING_MODES, SiamesePooler
from keras_sentemb.layers.word_embeddings import WordEmbeddings

__all__ = [
    "PAIR_FEATURES",
    "POOLING_MODES",
    "GatedConvFusion",
    "PairFeatureHead",
    "SemanticHashing",
    "SiamesePooler",
    "WordEmbeddings",
    "enable_backbone_lora",
]
