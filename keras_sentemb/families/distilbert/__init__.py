"""The DistilBERT family: keras-hub's `DistilBertBackbone`, loaded from Hugging Face `distilbert` folders,
its inference math in `inference.py`."""

import keras_hub

from keras_sentemb.families.distilbert.hugging_face import (
    CHECKPOINT_PREFIXES,
    DIMENSIONS,
    build_distilbert,
    distilbert_masked_lm_head,
    load_distilbert_weights,
)
from keras_sentemb.families.distilbert.inference import (
    computes_distilbert,
    distilbert_projections,
    distilbert_states,
)
from keras_sentemb.families.family import Family

FAMILY = Family(
    name="distilbert",
    model_types=("distilbert",),
    checkpoint_prefixes=CHECKPOINT_PREFIXES,
    dimensions=DIMENSIONS,
    build=build_distilbert,
    load_weights=load_distilbert_weights,
    masked_lm_head=distilbert_masked_lm_head,
    computes=computes_distilbert,
    states=distilbert_states,
    projections=distilbert_projections,
    backbone_types=(keras_hub.models.DistilBertBackbone,),
    unread_modules=("vocab_transform", "vocab_layer_norm", "vocab_projector"),
)
