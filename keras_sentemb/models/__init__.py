"""Models compose layers, encoders and losses."""

from keras_sentemb.models.hashed_encoder import HashedEncoder
from keras_sentemb.models.loading import load_sentence_encoder
from keras_sentemb.models.sbert import SBERT
from keras_sentemb.models.sentence_encoder import SentenceEncoder

__all__ = ["HashedEncoder", "SBERT", "SentenceEncoder", "load_sentence_encoder"]
