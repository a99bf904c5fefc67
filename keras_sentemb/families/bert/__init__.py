"""The BERT family: keras-hub's `BertBackbone` (as `HuggingFaceBertBackbone`, computing its config's
activation), loaded from Hugging Face `bert` folders, its inference math in `inference.py`."""

import keras_hub

from keras_sentemb.families.bert.hugging_face import (
    CHECKPOINT_PREFIXES,
    DIMENSIONS,
    bert_classifier_head,
    bert_masked_lm_head,
    build_bert,
    load_bert_weights,
)
from keras_sentemb.families.bert.inference import bert_projections, bert_states, computes_bert
from keras_sentemb.families.family import Family

FAMILY = Family(
    name="bert",
    model_types=("bert",),
    checkpoint_prefixes=CHECKPOINT_PREFIXES,
    dimensions=DIMENSIONS,
    build=build_bert,
    classifier_head=bert_classifier_head,
    masked_lm_head=bert_masked_lm_head,
    load_weights=load_bert_weights,
    computes=computes_bert,
    states=bert_states,
    projections=bert_projections,
    backbone_types=(keras_hub.models.BertBackbone,),
    unused_layers=("pooled_dense",),
    unread_modules=("pooler", "cls"),
)
