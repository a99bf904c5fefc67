"""What an exported model needs beside its graph to be served without TensorFlow — the packing of a text
(`start ids end`, padded on a side, at most `max_length` tokens) and the model's prompts — written by the exports
(`packing_settings`) and read back with every value checked (`read_packing`, `read_prompts`). The same keys sit in
an OpenVINO folder's `keras_sentemb_openvino.json` and in a LiteRT file's card."""

from keras_sentemb.utils.checked_files import require_keys

PACKING_KEYS = ("start_ids", "end_ids", "pad_token_id", "padding_side", "max_length")


def packing_settings(tokenizer):
    """The JSON-able packing of a keras-sentemb tokenizer (`SequencePacking`: `start_ids`, `end_ids`,
    `pad_token_id`, `padding_side`, `max_length`)."""
    return {
        "start_ids": [int(i) for i in tokenizer.start_ids],
        "end_ids": [int(i) for i in tokenizer.end_ids],
        "pad_token_id": int(tokenizer.pad_token_id),
        "padding_side": tokenizer.padding_side,
        "max_length": int(tokenizer.max_length),
    }


def read_packing(settings, source):
    """`settings["packing"]` checked (errors name `source: packing.KEY`); a ValueError saying to export again when
    there is none (an export made before the host tokenizer was saved).

    >>> read_packing({"packing": {"start_ids": [2], "end_ids": [3], "pad_token_id": 0, "padding_side": "right",
    ...                           "max_length": 2}}, "card")
    Traceback (most recent call last):
    ...
    ValueError: card: packing.max_length must be an int above the 2 special tokens, got 2
    """
    if "packing" not in settings:
        raise ValueError(
            f"{source}: no 'packing' key: this model was exported before keras-sentemb saved its host tokenizer; "
            "export it again to run it without TensorFlow"
        )
    packing = require_keys(settings["packing"], PACKING_KEYS, source)
    for key in ("start_ids", "end_ids"):
        ids = packing[key]
        check_value(
            isinstance(ids, list) and all(_id(i) for i in ids), source, f"packing.{key}", packing, "a list of ids"
        )
    check_value(_id(packing["pad_token_id"]), source, "packing.pad_token_id", packing, "an int ≥ 0")
    check_value(packing["padding_side"] in ("left", "right"), source, "packing.padding_side", packing, "left or right")
    specials = len(packing["start_ids"]) + len(packing["end_ids"])
    check_value(
        positive_int(packing["max_length"]) and packing["max_length"] > specials,
        source,
        "packing.max_length",
        packing,
        f"an int above the {specials} special tokens",
    )
    return {key: packing[key] for key in PACKING_KEYS}


def read_prompts(settings, source):
    """(prompts, default_prompt_name) of `settings`, checked: a str → str mapping and a name among it (or None)."""
    prompts = settings.get("prompts") or {}
    check_value(
        isinstance(prompts, dict) and all(isinstance(k, str) and isinstance(v, str) for k, v in prompts.items()),
        source,
        "prompts",
        settings,
        "an object of strings",
    )
    default = settings.get("default_prompt_name")
    check_value(default is None or default in prompts, source, "default_prompt_name", settings, "a name among prompts")
    return dict(prompts), default


def positive_int(value):
    return isinstance(value, int) and not isinstance(value, bool) and 0 < value < 2**31


def _id(value):
    return isinstance(value, int) and not isinstance(value, bool) and 0 <= value < 2**31


def check_value(holds, source, key, mapping, expected):
    """ValueError `source: key must be expected, got value` unless `holds`."""
    if not holds:
        value = mapping.get(key.rsplit(".", 1)[-1])
        raise ValueError(f"{source}: {key} must be {expected}, got {value!r}"[:300])
