"""Models compose layers, encoders and losses."""

from keras_sentemb.models.loading import load_sentence_encoder
from keras_sentemb.models.sbert import SBERT
from keras_sentemb.models.sentence_encoder import SentenceEncoder

__all__ = ["SBERT", "SentenceEncoder", "load_sentence_encoder"]
