"""The MPNet family: our `MPNetBackbone` (keras-hub has none), loaded from Hugging Face `mpnet` folders, its
inference math in `inference.py`."""

from keras_sentemb.families.family import Family
from keras_sentemb.families.mpnet.hugging_face import (
    CHECKPOINT_PREFIXES,
    DIMENSIONS,
    build_mpnet,
    load_mpnet_weights,
    mpnet_classifier_head,
    mpnet_masked_lm_head,
)
from keras_sentemb.families.mpnet.inference import computes_mpnet, mpnet_projections, mpnet_states
from keras_sentemb.families.mpnet.mpnet_backbone import MPNetBackbone

FAMILY = Family(
    name="mpnet",
    model_types=("mpnet",),
    checkpoint_prefixes=CHECKPOINT_PREFIXES,
    dimensions=DIMENSIONS,
    build=build_mpnet,
    classifier_head=mpnet_classifier_head,
    masked_lm_head=mpnet_masked_lm_head,
    load_weights=load_mpnet_weights,
    computes=computes_mpnet,
    states=mpnet_states,
    positions_read_ids=True,
    projections=mpnet_projections,
    backbone_types=(MPNetBackbone,),
    unread_modules=("pooler", "lm_head"),
)
