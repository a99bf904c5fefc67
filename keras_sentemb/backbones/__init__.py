"""Keras transformer backbones keras-hub lacks or computes differently from Hugging Face: MPNet, BERT with
its config's activation, RoBERTa / XLM-RoBERTa with Hugging Face's positions, Qwen3 with its position limit, ModernBERT, and Gemma 3's
text model (EmbeddingGemma)."""

from keras_sentemb.backbones.gemma3_layer import Gemma3Layer, GemmaRMSNorm
from keras_sentemb.backbones.gemma3_text_backbone import Gemma3TextBackbone
from keras_sentemb.backbones.hidden_activations import HIDDEN_ACTIVATIONS, hidden_activation
from keras_sentemb.backbones.hugging_face_bert_backbone import HuggingFaceBertBackbone
from keras_sentemb.backbones.hugging_face_qwen3_backbone import HuggingFaceQwen3Backbone
from keras_sentemb.backbones.hugging_face_roberta_backbone import HuggingFaceRobertaBackbone
from keras_sentemb.backbones.modernbert_backbone import ModernBertBackbone
from keras_sentemb.backbones.modernbert_layer import ModernBertLayer
from keras_sentemb.backbones.mpnet_backbone import MPNetBackbone
from keras_sentemb.backbones.mpnet_embedding import MPNetEmbedding
from keras_sentemb.backbones.mpnet_transformer_layer import MPNetTransformerLayer
from keras_sentemb.backbones.relative_position_bias import RelativePositionBias, relative_position_buckets

__all__ = [
    "HIDDEN_ACTIVATIONS",
    "Gemma3Layer",
    "Gemma3TextBackbone",
    "GemmaRMSNorm",
    "HuggingFaceBertBackbone",
    "HuggingFaceQwen3Backbone",
    "HuggingFaceRobertaBackbone",
    "MPNetBackbone",
    "ModernBertBackbone",
    "ModernBertLayer",
    "MPNetEmbedding",
    "MPNetTransformerLayer",
    "RelativePositionBias",
    "hidden_activation",
    "relative_position_buckets",
]
