"""The T5 encoder family (sentence-t5, GTR): `T5EncoderBackbone`, loaded from Hugging Face `t5` folders, its
math `t5_block` once for the Keras layer and every runtime."""

from keras_sentemb.families.family import GATED_FEEDFORWARD_LORA, Family
from keras_sentemb.families.t5.hugging_face import CHECKPOINT_PREFIXES, DIMENSIONS, build_t5, load_t5_weights
from keras_sentemb.families.t5.inference import computes_t5, t5_states
from keras_sentemb.families.t5.t5_encoder_backbone import T5EncoderBackbone

FAMILY = Family(
    name="t5",
    model_types=("t5",),
    checkpoint_prefixes=CHECKPOINT_PREFIXES,
    dimensions=DIMENSIONS,
    build=build_t5,
    load_weights=load_t5_weights,
    computes=computes_t5,
    states=t5_states,
    backbone_types=(T5EncoderBackbone,),
    lora_targets=GATED_FEEDFORWARD_LORA,
    unread_modules=("decoder", "lm_head"),
)
