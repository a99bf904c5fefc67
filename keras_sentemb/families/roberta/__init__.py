"""The RoBERTa family (RoBERTa and XLM-RoBERTa, the same network): `HuggingFaceRobertaBackbone`, loaded from
Hugging Face `roberta` / `xlm-roberta` folders, its inference math in `inference.py`."""

from keras_sentemb.families.family import Family
from keras_sentemb.families.roberta.hugging_face import (
    CHECKPOINT_PREFIXES,
    DIMENSIONS,
    build_roberta,
    load_roberta_weights,
    roberta_classifier_head,
    roberta_masked_lm_head,
)
from keras_sentemb.families.roberta.hugging_face_roberta_backbone import HuggingFaceRobertaBackbone
from keras_sentemb.families.roberta.inference import computes_roberta, roberta_projections, roberta_states

FAMILY = Family(
    name="roberta",
    model_types=("roberta", "xlm-roberta"),
    checkpoint_prefixes=CHECKPOINT_PREFIXES,
    dimensions=DIMENSIONS,
    build=build_roberta,
    classifier_head=roberta_classifier_head,
    masked_lm_head=roberta_masked_lm_head,
    load_weights=load_roberta_weights,
    computes=computes_roberta,
    states=roberta_states,
    positions_read_ids=True,
    projections=roberta_projections,
    backbone_types=(HuggingFaceRobertaBackbone,),
    unread_modules=("pooler", "lm_head"),
)
