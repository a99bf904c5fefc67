"""Public Keras layers of keras-sentemb: one layer per file."""

from keras_sentemb.layers.siamese_pooler import POOLING_MODES, SiamesePooler

__all__ = ["POOLING_MODES", "SiamesePooler"]
