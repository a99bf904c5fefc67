"""Public Keras layers of keras-sentemb: one layer per file."""

from keras_sentemb.layers.gated_conv_fusion import GatedConvFusion
from keras_sentemb.layers.pair_feature_head import PAIR_FEATURES, PairFeatureHead
from keras_sentemb.layers.semantic_hashing import SemanticHashing
from keras_sentemb.layers.siamese_pooler import POOLING_MODES, SiamesePooler

__all__ = ["GatedConvFusion", "PAIR_FEATURES", "POOLING_MODES", "PairFeatureHead", "SemanticHashing", "SiamesePooler"]
