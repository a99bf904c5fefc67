"""The Qwen3 family (Qwen3-Embedding): keras-hub's `Qwen3Backbone` (as `HuggingFaceQwen3Backbone`, through
`keras_hub_adapter`), loaded from Hugging Face `qwen3` folders, its inference math in `inference.py`."""

import keras_hub

from keras_sentemb.families.family import GATED_FEEDFORWARD_LORA, Family
from keras_sentemb.families.qwen3.hugging_face import CHECKPOINT_PREFIXES, DIMENSIONS, build_qwen3, load_qwen3_weights
from keras_sentemb.families.qwen3.inference import computes_qwen3, qwen3_last_token_states, qwen3_states

FAMILY = Family(
    name="qwen3",
    model_types=("qwen3",),
    checkpoint_prefixes=CHECKPOINT_PREFIXES,
    dimensions=DIMENSIONS,
    build=build_qwen3,
    load_weights=load_qwen3_weights,
    computes=computes_qwen3,
    states=qwen3_states,
    last_token_states=qwen3_last_token_states,
    backbone_types=(keras_hub.models.Qwen3Backbone,),
    lora_targets=GATED_FEEDFORWARD_LORA,
    language_model_head=("lm_head.weight", "embed_tokens.weight"),
    unread_modules=("lm_head",),
)
