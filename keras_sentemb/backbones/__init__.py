"""The public names of the Keras backbones this package builds (each lives in its family's folder,
`keras_sentemb.families.<family>`): MPNet, BERT with its config's activation, RoBERTa / XLM-RoBERTa with
Hugging Face's positions, Qwen3 and Qwen2 with their position limit, ModernBERT, and Gemma 3's text model
(EmbeddingGemma)."""

import keras_sentemb.tensorflow_start  # noqa: F401  (TensorFlow started quietly, before any Keras import)
from keras_sentemb.families.bert.hugging_face_bert_backbone import HuggingFaceBertBackbone
from keras_sentemb.families.gemma3.gemma3_layer import Gemma3Layer, GemmaRMSNorm
from keras_sentemb.families.gemma3.gemma3_text_backbone import Gemma3TextBackbone
from keras_sentemb.families.hidden_activations import HIDDEN_ACTIVATIONS, hidden_activation
from keras_sentemb.families.modernbert.modernbert_backbone import ModernBertBackbone
from keras_sentemb.families.modernbert.modernbert_layer import ModernBertLayer
from keras_sentemb.families.mpnet.mpnet_backbone import MPNetBackbone
from keras_sentemb.families.mpnet.mpnet_transformer_layer import MPNetTransformerLayer
from keras_sentemb.families.qwen2.hugging_face_qwen2_backbone import HuggingFaceQwen2Backbone
from keras_sentemb.families.qwen3.hugging_face_qwen3_backbone import HuggingFaceQwen3Backbone
from keras_sentemb.families.relative_position_bias import RelativePositionBias, relative_position_buckets
from keras_sentemb.families.roberta.hugging_face_roberta_backbone import HuggingFaceRobertaBackbone
from keras_sentemb.families.roberta_positions import MPNetEmbedding

__all__ = [
    "HIDDEN_ACTIVATIONS",
    "Gemma3Layer",
    "Gemma3TextBackbone",
    "GemmaRMSNorm",
    "HuggingFaceBertBackbone",
    "HuggingFaceQwen2Backbone",
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
