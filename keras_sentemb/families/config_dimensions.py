"""What a family's builder reads from config.json, and where the checkpoint shows it: `ArchitectureDimensions`,
one row a family (its `hugging_face.py`), checked by `pretrained.checkpoint_config` before anything is built.

`Bounds` says what a number setting means: `EPSILON` (a norm's ε), `ROTARY_BASE`, `ATTENTION_SCALAR`,
`SOFT_CAP`; `encoder_dimensions` and `decoder_dimensions` are the rows of the BERT-shaped encoders and of
the decoders with grouped key/value heads; `rope_theta` reads one rotary base (both transformers layouts).
"""

import dataclasses
import math

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


def encoder_dimensions(type_vocab_size, extra_integers=(), extra_witnesses=(), padding_in_positions=False):
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


def decoder_dimensions(
    head_dim=None,
    extra_integers=(),
    extra_numbers=(),
    layer_types=(),
    rope="one",
    rotary_bases=(),
    extra_witnesses=(),
):
    """Llama-lineage decoders' dimensions (Qwen2, Qwen3, Gemma 3): `layers.N.*` blocks, grouped key/value heads,
    and a head size of their own (`head_dim`, its default; the query and key projections must be heads × it)
    or, with `head_dim=None`, hidden / heads (Qwen2). `extra_witnesses` (the family's own tensors: a head norm's
    length is the head size) are checked after the embedding's."""
    own_head_size = head_dim is not None
    return ArchitectureDimensions(
        integers={
            "vocab_size": REQUIRED,
            "hidden_size": REQUIRED,
            "num_hidden_layers": REQUIRED,
            "num_attention_heads": REQUIRED,
            "num_key_value_heads": REQUIRED,
            **({"head_dim": head_dim} if own_head_size else {}),
            "intermediate_size": REQUIRED,
            "max_position_embeddings": REQUIRED,
            **dict(extra_integers),
        },
        witnesses=(
            ("vocab_size", "embed_tokens.weight", 0),
            ("hidden_size", "embed_tokens.weight", 1),
            *extra_witnesses,
            ("intermediate_size", "layers.0.mlp.up_proj.weight", 0),
        ),
        layers=("num_hidden_layers", r"layers\.(\d+)\."),
        heads=None if own_head_size else ("num_attention_heads", "hidden_size"),
        numbers={"rms_norm_eps": EPSILON, **dict(extra_numbers)},
        activations=("hidden_act", "hidden_activation"),
        products=(
            ("num_attention_heads", "head_dim", "layers.0.self_attn.q_proj.weight", 0),
            ("num_key_value_heads", "head_dim", "layers.0.self_attn.k_proj.weight", 0),
        )
        if own_head_size
        else (),
        grouped=("num_attention_heads", "num_key_value_heads"),
        layer_types=layer_types,
        rope=rope,
        rotary_bases=rotary_bases,
    )


def rope_theta(config, source):
    """`rope_theta` (transformers 4) or `rope_parameters.rope_theta` (transformers 5); scaling refused."""
    parameters = config.get("rope_parameters") or {}
    scaling = config.get("rope_scaling") or (
        parameters if parameters.get("rope_type", "default") != "default" else None
    )
    if scaling:
        raise ValueError(f"{source}: RoPE scaling {scaling!r} is not supported (plain rotary positions only)")
    theta = parameters.get("rope_theta", config.get("rope_theta", 10000.0))
    if type(theta) not in (int, float) or not theta > 0:
        raise ValueError(f"{source}: rope_theta must be a positive number, got {theta!r}")
    return float(theta)
