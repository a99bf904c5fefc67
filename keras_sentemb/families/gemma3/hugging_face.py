"""Gemma 3's text model from Hugging Face (`gemma3_text`: EmbeddingGemma): config.json → `Gemma3TextBackbone`,
checkpoint tensors → its weights."""

from keras_sentemb.families.config_dimensions import ATTENTION_SCALAR, LAYER_TYPES, SOFT_CAP, decoder_dimensions
from keras_sentemb.families.gemma3.gemma3_text_backbone import Gemma3TextBackbone
from keras_sentemb.families.hidden_activations import hidden_activation

DIMENSIONS = decoder_dimensions(
    head_dim=256,
    extra_integers={"sliding_window": 4096, "sliding_window_pattern": 6},
    extra_numbers={"query_pre_attn_scalar": ATTENTION_SCALAR, "attn_logit_softcapping": SOFT_CAP},
    layer_types=LAYER_TYPES,
    rope="per_layer_type",
    rotary_bases=("rope_theta", "rope_local_base_freq"),
    extra_witnesses=(("head_dim", "layers.0.self_attn.q_norm.weight", 0),),  # its head norm is head_dim long
)
CHECKPOINT_PREFIXES = ("model.",)


def rope_settings(config, source):
    """(global theta, global linear scaling factor, local theta) from transformers 5's `rope_parameters`
    per layer type or transformers 4's `rope_theta`, `rope_local_base_freq`, `rope_scaling`."""
    parameters = config.get("rope_parameters") or {}
    full = dict(parameters.get("full_attention") or {})
    local = dict(parameters.get("sliding_attention") or {})
    if not parameters and config.get("rope_scaling"):
        full.update(config["rope_scaling"])
    full.setdefault("rope_theta", config.get("rope_theta", 1_000_000.0))
    local.setdefault("rope_theta", config.get("rope_local_base_freq", 10_000.0))
    factor = 1.0
    if full.get("rope_type", "default") == "linear":
        factor = full.get("factor", 1.0)
    elif full.get("rope_type", "default") != "default":
        raise ValueError(f"{source}: RoPE type {full['rope_type']!r} is not supported (default, linear)")
    if local.get("rope_type", "default") != "default":
        raise ValueError(f"{source}: sliding layers' RoPE type {local['rope_type']!r} is not supported (default)")
    values = (full["rope_theta"], factor, local["rope_theta"])
    if any(type(value) not in (int, float) or not value > 0 for value in values):
        raise ValueError(f"{source}: RoPE settings must be positive numbers, got {values!r}")
    return tuple(float(value) for value in values)


def build_gemma3(config, source, dtype):
    global_theta, factor, local_theta = rope_settings(config, source)
    sliding_window = config.get("sliding_window", 4096)
    if type(sliding_window) is not int or sliding_window < 1:
        raise ValueError(f"{source}: sliding_window must be an integer ≥ 1, got {sliding_window!r}")
    layer_types = config.get("layer_types")
    if layer_types is None:
        pattern = config.get("sliding_window_pattern", 6)
        layer_types = [
            "sliding_attention" if (i + 1) % pattern else "full_attention" for i in range(config["num_hidden_layers"])
        ]
    for key in ("attn_logit_softcapping", "query_pre_attn_scalar"):
        value = config.get(key)
        if value is not None and (type(value) not in (int, float) or not value > 0):
            raise ValueError(f"{source}: {key} must be a positive number, got {value!r}")
    activation = config.get("hidden_activation", "gelu_pytorch_tanh")
    hidden_activation(activation)
    return Gemma3TextBackbone(
        vocabulary_size=config["vocab_size"],
        num_layers=config["num_hidden_layers"],
        num_query_heads=config["num_attention_heads"],
        num_key_value_heads=config["num_key_value_heads"],
        head_dim=config.get("head_dim", 256),
        hidden_dim=config["hidden_size"],
        intermediate_dim=config["intermediate_size"],
        layer_types=layer_types,
        sliding_window=sliding_window,
        bidirectional=bool(config.get("use_bidirectional_attention", False)),
        global_rope_theta=global_theta,
        local_rope_theta=local_theta,
        global_rope_scaling_factor=factor,
        query_pre_attn_scalar=config.get("query_pre_attn_scalar", 256),
        attention_soft_cap=config.get("attn_logit_softcapping"),
        layer_norm_epsilon=config.get("rms_norm_eps", 1e-6),
        attention_bias=bool(config.get("attention_bias", False)),
        hidden_activation=activation,
        max_sequence_length=config["max_position_embeddings"],
        dtype=dtype,
    )


def load_gemma3_weights(backbone, tensors):
    tensors.assign(backbone.token_embedding.embeddings, "embed_tokens.weight")
    for index, block in enumerate(backbone.transformer_layers):
        at = f"layers.{index}"
        for dense, name in (
            (block.query, "self_attn.q_proj"),
            (block.key, "self_attn.k_proj"),
            (block.value, "self_attn.v_proj"),
            (block.attention_output, "self_attn.o_proj"),
            (block.gate, "mlp.gate_proj"),
            (block.up, "mlp.up_proj"),
            (block.down, "mlp.down_proj"),
        ):
            tensors.assign_linear(dense, f"{at}.{name}")
        for norm, name in (
            (block.query_norm, "self_attn.q_norm"),
            (block.key_norm, "self_attn.k_norm"),
            (block.input_norm, "input_layernorm"),
            (block.post_attention_norm, "post_attention_layernorm"),
            (block.pre_feedforward_norm, "pre_feedforward_layernorm"),
            (block.post_feedforward_norm, "post_feedforward_layernorm"),
        ):
            tensors.assign(norm.scale, f"{at}.{name}.weight")
    tensors.assign(backbone.final_norm.scale, "norm.weight")
