"""The ModernBERT family: our `ModernBertBackbone` (global and local attention, two rotary bases, GeGLU),
loaded from Hugging Face `modernbert` folders, its inference math in `inference.py`."""

from keras_sentemb.families.family import Family
from keras_sentemb.families.modernbert.hugging_face import (
    CHECKPOINT_PREFIXES,
    DIMENSIONS,
    build_modernbert,
    load_modernbert_weights,
    modernbert_classifier_head,
    modernbert_masked_lm_head,
)
from keras_sentemb.families.modernbert.inference import computes_modernbert, modernbert_states
from keras_sentemb.families.modernbert.modernbert_backbone import ModernBertBackbone

FAMILY = Family(
    name="modernbert",
    model_types=("modernbert",),
    checkpoint_prefixes=CHECKPOINT_PREFIXES,
    dimensions=DIMENSIONS,
    build=build_modernbert,
    classifier_head=modernbert_classifier_head,
    masked_lm_head=modernbert_masked_lm_head,
    load_weights=load_modernbert_weights,
    computes=computes_modernbert,
    states=modernbert_states,
    backbone_types=(ModernBertBackbone,),
    lora_targets={"attention": ("qkv",), "all": ("qkv", "attention_output", "mlp_input", "mlp_output")},
    unread_modules=("head", "decoder"),
)
