"""Qwen3 from Hugging Face: config.json → `HuggingFaceQwen3Backbone`, checkpoint tensors → its weights."""

from keras_sentemb.families.config_dimensions import decoder_dimensions, rope_theta
from keras_sentemb.families.hugging_face_weights import require_config_value, reshaped, transposed
from keras_sentemb.families.qwen3.hugging_face_qwen3_backbone import HuggingFaceQwen3Backbone
from keras_sentemb.families.qwen3.keras_hub_adapter import decoder_blocks

# Qwen3: every layer full attention (its sliding-window variant is not built)
DIMENSIONS = decoder_dimensions(head_dim=128, layer_types=("full_attention",), rotary_bases=("rope_theta",))
CHECKPOINT_PREFIXES = ("model.",)


def build_qwen3(config, source, dtype):
    require_config_value(config, "hidden_act", "silu", source)
    require_config_value(config, "attention_bias", False, source)
    require_config_value(config, "use_sliding_window", False, source)
    return HuggingFaceQwen3Backbone(
        vocabulary_size=config["vocab_size"],
        num_layers=config["num_hidden_layers"],
        num_query_heads=config["num_attention_heads"],
        num_key_value_heads=config["num_key_value_heads"],
        head_dim=config.get("head_dim", 128),
        hidden_dim=config["hidden_size"],
        intermediate_dim=config["intermediate_size"],
        rope_max_wavelength=rope_theta(config, source),
        layer_norm_epsilon=config.get("rms_norm_eps", 1e-6),
        tie_word_embeddings=False,
        max_sequence_length=config["max_position_embeddings"],
        dtype=dtype,
    )


def load_qwen3_weights(backbone, tensors):
    tensors.assign(backbone.token_embedding.embeddings, "embed_tokens.weight")
    for index, block in enumerate(decoder_blocks(backbone)):
        at = f"layers.{index}"
        for dense, name in (
            (block.query, "q_proj"),
            (block.key, "k_proj"),
            (block.value, "v_proj"),
            (block.attention_output, "o_proj"),
        ):
            # [out, in] → the einsum kernel ([hidden, heads, head_dim] or [heads, head_dim, hidden])
            tensors.assign(
                dense.kernel,
                f"{at}.self_attn.{name}.weight",
                reshaped(dense.kernel.shape, transposed),
            )
        tensors.assign(block.query_norm.scale, f"{at}.self_attn.q_norm.weight")
        tensors.assign(block.key_norm.scale, f"{at}.self_attn.k_norm.weight")
        tensors.assign(block.input_norm.scale, f"{at}.input_layernorm.weight")
        tensors.assign(block.feedforward_norm.scale, f"{at}.post_attention_layernorm.weight")
        tensors.assign_linear(block.gate, f"{at}.mlp.gate_proj")
        tensors.assign_linear(block.up, f"{at}.mlp.up_proj")
        tensors.assign_linear(block.down, f"{at}.mlp.down_proj")
    tensors.assign(backbone.layer_norm.scale, "norm.weight")
