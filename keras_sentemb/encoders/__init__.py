"""Strings and tokens to token states: tokenizer, pretrained weights, backbone taps."""

from keras_sentemb.encoders.pretrained_weights import (
    PRETRAINED_SOURCES,
    resolve_pretrained_dir,
    sentence_settings,
)
from keras_sentemb.encoders.sentence_tokenizer import SentenceTokenizer
from keras_sentemb.encoders.transformer_layer_states import transformer_layer_states
from keras_sentemb.encoders.word_embeddings import WordEmbeddings
from keras_sentemb.encoders.word_tokenizer import WordTokenizer
from keras_sentemb.encoders.word_vectors import (
    WORD_VECTOR_TYPES,
    WordVectors,
    build_word_vectors,
    load_glove,
)

__all__ = [
    "PRETRAINED_SOURCES",
    "SentenceTokenizer",
    "resolve_pretrained_dir",
    "sentence_settings",
    "transformer_layer_states",
    "WORD_VECTOR_TYPES",
    "WordEmbeddings",
    "WordTokenizer",
    "WordVectors",
    "build_word_vectors",
    "load_glove",
]
