"""Models compose layers, encoders and losses."""

from keras_sentemb.models.bilstm_sra import BiLSTMSRA
from keras_sentemb.models.cross_encoder import CrossEncoder
from keras_sentemb.models.dse import DSE
from keras_sentemb.models.hashed_encoder import HashedEncoder
from keras_sentemb.models.inferlite import InferLite
from keras_sentemb.models.loading import load_sentence_encoder
from keras_sentemb.models.sbert import SBERT
from keras_sentemb.models.sentence_classifier import SentenceClassifier
from keras_sentemb.models.sentence_encoder import SentenceEncoder

__all__ = [
    "BiLSTMSRA", "CrossEncoder", "DSE", "HashedEncoder", "InferLite", "SBERT", "SentenceClassifier",
    "SentenceEncoder", "load_sentence_encoder",
]
