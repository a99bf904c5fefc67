"""The Qwen2 family (gte-Qwen2's shape): keras-hub's `QwenBackbone` (as `HuggingFaceQwen2Backbone`), loaded from
Hugging Face `qwen2` folders, its inference math the pre-norm decoder of `families/pre_norm_decoder.py`."""

import keras_hub

from keras_sentemb.families.family import GATED_FEEDFORWARD_LORA, Family
from keras_sentemb.families.qwen2.hugging_face import CHECKPOINT_PREFIXES, DIMENSIONS, build_qwen2, load_qwen2_weights
from keras_sentemb.families.qwen2.inference import computes_qwen2, qwen2_last_token_states, qwen2_states

FAMILY = Family(
    name="qwen2",
    model_types=("qwen2",),
    checkpoint_prefixes=CHECKPOINT_PREFIXES,
    dimensions=DIMENSIONS,
    build=build_qwen2,
    load_weights=load_qwen2_weights,
    computes=computes_qwen2,
    states=qwen2_states,
    last_token_states=qwen2_last_token_states,
    backbone_types=(keras_hub.models.QwenBackbone,),
    lora_targets=GATED_FEEDFORWARD_LORA,
    language_model_head=("lm_head.weight", "embed_tokens.weight"),
    unread_modules=("lm_head",),
)
