"""The family registry: `FAMILIES`, one `Family` each, and the two ways to find one.

- `family_for_model_type(model_type)`: the family that loads a Hugging Face folder of that config.json
  `model_type` (the loader's question);
- `family_computing(backbone)`: the family whose inference math computes this backbone (float32, unquantised,
  its own block types), or None (every runtime's question: the fused OpenVINO and LiteRT graphs, the
  unpadded SavedModel);
- `family_of(backbone)`: the family of its class at any dtype (what LoRA adapts: `lora_layer_names`).

Adding a family is its folder and one entry here (docs/architecture.md, "Where a new family goes").

>>> family_for_model_type("xlm-roberta").name
'roberta'
>>> sorted(MODEL_TYPES)
['bert', 'distilbert', 'gemma3_text', 'modernbert', 'mpnet', 'qwen2', 'qwen3', 'roberta', 't5', 'xlm-roberta']
"""

from keras_sentemb.families import bert, distilbert, gemma3, modernbert, mpnet, qwen2, qwen3, roberta, t5
from keras_sentemb.families.family import TRANSFORMER_ENCODER_LORA

FAMILIES = (
    bert.FAMILY,
    distilbert.FAMILY,
    roberta.FAMILY,
    mpnet.FAMILY,
    modernbert.FAMILY,
    gemma3.FAMILY,
    qwen3.FAMILY,
    qwen2.FAMILY,
    t5.FAMILY,
)
MODEL_TYPES = {model_type: family for family in FAMILIES for model_type in family.model_types}


def family_for_model_type(model_type):
    """The `Family` that loads config.json's `model_type`; KeyError for any other."""
    return MODEL_TYPES[model_type]


def family_of(backbone):
    """The `Family` whose backbone class `backbone` is (at any dtype, quantised or not), or None."""
    return next((family for family in FAMILIES if isinstance(backbone, family.backbone_types)), None)


LORA_CHOICES = ("attention", "all")


def lora_layer_names(backbone, targets=None):
    """The layer names keras-hub's `enable_lora` adapts in `backbone` for `targets`: "attention" (None) or
    "all" read the backbone's family (`Family.lora_targets`; keras-hub's own default and the
    `TransformerEncoder` names for a backbone of no family here), a sequence of names is taken as it is.

    >>> import keras_hub
    >>> from keras_sentemb.families.modernbert.modernbert_backbone import ModernBertBackbone
    >>> lora_layer_names(ModernBertBackbone(vocabulary_size=20, num_layers=1, num_heads=2, hidden_dim=8,
    ...                                     intermediate_dim=12), "attention")
    ['qkv']
    """
    if targets is not None and not isinstance(targets, str):
        return list(targets)
    choice = "attention" if targets is None else targets
    if choice not in LORA_CHOICES:
        raise ValueError(f"LoRA targets {targets!r}: one of {', '.join(LORA_CHOICES)}, or a sequence of layer names")
    family = family_of(backbone)
    if family is None:
        return None if choice == "attention" else list(TRANSFORMER_ENCODER_LORA["all"])
    return list(family.lora_targets[choice])


def family_computing(backbone):
    """The `Family` whose inference math computes `backbone`, or None."""
    return next((family for family in FAMILIES if family.computes(backbone)), None)


def freeze_unused_layers(backbone):
    """Freezes the backbone's layers a sentence embedding never reads (its family's `unused_layers`: BERT's pooler
    tanh(W·h_CLS)), so that training neither updates them nor warns that they have no gradient."""
    family = family_of(backbone)
    unused = set(family.unused_layers) if family is not None else set()
    for layer in backbone.layers:
        if layer.name in unused:
            layer.trainable = False
