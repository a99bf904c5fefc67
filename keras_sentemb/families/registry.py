"""The family registry: `FAMILIES`, one `Family` each, and the two ways to find one.

- `family_for_model_type(model_type)`: the family that loads a Hugging Face folder of that config.json
  `model_type` (the loader's question);
- `family_computing(backbone)`: the family whose inference math computes this backbone (float32, unquantised,
  its own block types), or None (every runtime's question: the fused OpenVINO and LiteRT graphs, the
  unpadded SavedModel).

Adding a family is its folder and one entry here (docs/architecture.md, "Where a new family goes").

>>> family_for_model_type("xlm-roberta").name
'roberta'
>>> sorted(MODEL_TYPES)
['bert', 'distilbert', 'gemma3_text', 'modernbert', 'mpnet', 'qwen2', 'qwen3', 'roberta', 't5', 'xlm-roberta']
"""

from keras_sentemb.families import bert, distilbert, gemma3, modernbert, mpnet, qwen2, qwen3, roberta, t5

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


def family_computing(backbone):
    """The `Family` whose inference math computes `backbone`, or None."""
    return next((family for family in FAMILIES if family.computes(backbone)), None)
