"""T5's encoder from Hugging Face (sentence-t5, GTR): config.json → `T5EncoderBackbone`, tensors → its weights.

A `T5EncoderModel` checkpoint (what sentence-transformers saves) or a whole `T5Model` / `T5ForConditionalGeneration`
one (its `decoder.*` and `lm_head` are not read) alike.
"""

from keras_sentemb.families.config_dimensions import EPSILON, REQUIRED, ArchitectureDimensions
from keras_sentemb.families.hidden_activations import HIDDEN_ACTIVATIONS
from keras_sentemb.families.t5.t5_encoder_backbone import T5EncoderBackbone

ATTENTION = "encoder.block.{}.layer.0"
FEEDFORWARD = "encoder.block.{}.layer.1"
DIMENSIONS = ArchitectureDimensions(
    integers={
        "vocab_size": REQUIRED,
        "d_model": REQUIRED,
        "num_layers": REQUIRED,
        "num_heads": REQUIRED,
        "d_kv": REQUIRED,
        "d_ff": REQUIRED,
        "relative_attention_num_buckets": 32,
        "relative_attention_max_distance": 128,
    },
    witnesses=(
        ("vocab_size", "shared.weight", 0),
        ("d_model", "shared.weight", 1),
        ("d_ff", f"{FEEDFORWARD.format(0)}.DenseReluDense.wo.weight", 1),
        ("relative_attention_num_buckets", f"{ATTENTION.format(0)}.SelfAttention.relative_attention_bias.weight", 0),
        ("num_heads", f"{ATTENTION.format(0)}.SelfAttention.relative_attention_bias.weight", 1),
    ),
    layers=("num_layers", r"^encoder\.block\.(\d+)\."),
    heads=None,
    numbers={"layer_norm_epsilon": EPSILON},
    activations=("dense_act_fn",),
    products=(("num_heads", "d_kv", f"{ATTENTION.format(0)}.SelfAttention.q.weight", 0),),
)
CHECKPOINT_PREFIXES = ()


def feed_forward(config, source):
    """(activation name, gated) of config.json's `feed_forward_proj`: "relu" / "gated-gelu" / "gated-<act>"."""
    value = config.get("feed_forward_proj", "relu")
    if not isinstance(value, str):
        raise ValueError(f"{source}: feed_forward_proj must be a string, got {value!r}")
    gated = value.startswith("gated-")
    activation = value[len("gated-") :] if gated else value
    activation = "gelu_new" if activation == "gelu" else activation  # transformers' T5Config reads it so
    if activation not in HIDDEN_ACTIVATIONS or value.count("-") > 1:
        raise ValueError(
            f"{source}: feed_forward_proj {value!r} is not supported; supported: an activation "
            f"({', '.join(sorted(HIDDEN_ACTIVATIONS))}) or gated-<activation>"
        )
    return activation, gated


def build_t5(config, source, dtype):
    if config.get("is_decoder", False):
        raise ValueError(f"{source}: is_decoder=true is a T5 decoder, not an encoder")
    activation, gated = feed_forward(config, source)
    positions = config.get("n_positions", 512)
    if type(positions) is not int or positions < 1:
        raise ValueError(f"{source}: n_positions must be a positive int, got {positions!r}")
    return T5EncoderBackbone(
        vocabulary_size=config["vocab_size"],
        num_layers=config["num_layers"],
        num_heads=config["num_heads"],
        hidden_dim=config["d_model"],
        key_value_dim=config["d_kv"],
        intermediate_dim=config["d_ff"],
        activation=activation,
        gated=gated,
        max_sequence_length=positions,
        relative_attention_num_buckets=config.get("relative_attention_num_buckets", 32),
        relative_attention_max_distance=config.get("relative_attention_max_distance", 128),
        layer_norm_epsilon=config.get("layer_norm_epsilon", 1e-6),
        dtype=dtype,
    )


def load_t5_weights(backbone, tensors):
    # the token table: `shared`, which the encoder's `embed_tokens` ties to (a checkpoint may hold both)
    if "encoder.embed_tokens.weight" in tensors and "shared.weight" in tensors:
        tensors.get("encoder.embed_tokens.weight")
    tensors.assign(backbone.token_embedding.embeddings, "shared.weight")
    bias = f"{ATTENTION.format(0)}.SelfAttention.relative_attention_bias.weight"
    tensors.assign(backbone.relative_position_bias.embeddings, bias)
    for index, layer in enumerate(backbone.transformer_layers):
        attention, feedforward = ATTENTION.format(index), FEEDFORWARD.format(index)
        tensors.assign(layer.attention_norm.scale, f"{attention}.layer_norm.weight")
        for dense, name in (
            (layer.query, "q"),
            (layer.key, "k"),
            (layer.value, "v"),
            (layer.attention_output, "o"),
        ):
            tensors.assign_linear(dense, f"{attention}.SelfAttention.{name}")
        tensors.assign(layer.feedforward_norm.scale, f"{feedforward}.layer_norm.weight")
        if layer.gated:
            tensors.assign_linear(layer.feedforward_intermediate_dense, f"{feedforward}.DenseReluDense.wi_0")
            tensors.assign_linear(layer.feedforward_gate_dense, f"{feedforward}.DenseReluDense.wi_1")
        else:
            tensors.assign_linear(layer.feedforward_intermediate_dense, f"{feedforward}.DenseReluDense.wi")
        tensors.assign_linear(layer.feedforward_output_dense, f"{feedforward}.DenseReluDense.wo")
    tensors.assign(backbone.layer_norm.scale, "encoder.final_layer_norm.weight")
