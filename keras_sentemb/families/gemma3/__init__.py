"""The Gemma 3 family (EmbeddingGemma): our `Gemma3TextBackbone` (keras-hub's Gemma3 computes another function
for Hugging Face configs), loaded from Hugging Face `gemma3_text` folders, its inference math in `inference.py`."""

from keras_sentemb.families.family import Family
from keras_sentemb.families.gemma3.gemma3_text_backbone import Gemma3TextBackbone
from keras_sentemb.families.gemma3.hugging_face import (
    CHECKPOINT_PREFIXES,
    DIMENSIONS,
    build_gemma3,
    load_gemma3_weights,
)
from keras_sentemb.families.gemma3.inference import computes_gemma3, gemma3_states

FAMILY = Family(
    name="gemma3",
    model_types=("gemma3_text",),
    checkpoint_prefixes=CHECKPOINT_PREFIXES,
    dimensions=DIMENSIONS,
    build=build_gemma3,
    load_weights=load_gemma3_weights,
    computes=computes_gemma3,
    states=gemma3_states,
    backbone_types=(Gemma3TextBackbone,),
    lora_targets={
        "attention": ("query", "value"),
        "all": ("query", "key", "value", "attention_output", "gate", "up", "down"),
    },
    unread_modules=("lm_head",),
)
