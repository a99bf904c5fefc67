"""Every trainable model of the package, on the `EmbeddingModel` base (the one batched,
length-bucketed inference loop) and the `PipelineTraining` base (fit on our tf.data pipelines)."""

import keras_sentemb.tensorflow_start  # noqa: F401  (TensorFlow started quietly, before any Keras import)
from keras_sentemb.models.bilstm_sra import BiLSTMSRA
from keras_sentemb.models.code_distillation_head import CodeDistillationHead
from keras_sentemb.models.cross_encoder import CrossEncoder
from keras_sentemb.models.dse import DSE
from keras_sentemb.models.embedding_model import EmbeddingModel
from keras_sentemb.models.hashed_encoder import HashedEncoder
from keras_sentemb.models.inferlite import InferLite
from keras_sentemb.models.keras_file import load_model
from keras_sentemb.models.multi_vector_encoder import MultiVectorEncoder
from keras_sentemb.models.openvino_encoder import OpenVINOEncoder
from keras_sentemb.models.pipeline_training import PipelineTraining
from keras_sentemb.models.sbert import SBERT
from keras_sentemb.models.sentence_classifier import SentenceClassifier
from keras_sentemb.models.sentence_encoder import SentenceEncoder
from keras_sentemb.models.sparse_encoder import SparseEncoder, StaticSparseEncoder
from keras_sentemb.models.static_encoder import StaticEncoder
from keras_sentemb.models.transfer_model import TransferModel
from keras_sentemb.models.word_encoder import WordEncoder
from keras_sentemb.models.word_vector_tables import build_word_vectors, minilm_word_table

__all__ = [
    "load_model",
    "BiLSTMSRA",
    "CodeDistillationHead",
    "CrossEncoder",
    "DSE",
    "EmbeddingModel",
    "HashedEncoder",
    "InferLite",
    "MultiVectorEncoder",
    "OpenVINOEncoder",
    "PipelineTraining",
    "SBERT",
    "SentenceClassifier",
    "SentenceEncoder",
    "SparseEncoder",
    "StaticSparseEncoder",
    "StaticEncoder",
    "TransferModel",
    "WordEncoder",
    "build_word_vectors",
    "minilm_word_table",
]
