"""Qwen2 from Hugging Face: config.json → `HuggingFaceQwen2Backbone`, checkpoint tensors → its weights."""

from keras_sentemb.families.config_dimensions import decoder_dimensions, rope_theta
from keras_sentemb.families.hugging_face_weights import assign_decoder_block, require_config_value
from keras_sentemb.families.qwen2.hugging_face_qwen2_backbone import HuggingFaceQwen2Backbone
from keras_sentemb.families.qwen2.keras_hub_adapter import decoder_blocks

# Qwen2: every layer full attention, the head size hidden / query heads, biased q/k/v projections
DIMENSIONS = decoder_dimensions(
    layer_types=("full_attention",),
    rotary_bases=("rope_theta",),
    extra_witnesses=(("hidden_size", "layers.0.self_attn.q_proj.weight", 0),),
)
CHECKPOINT_PREFIXES = ("model.",)


def build_qwen2(config, source, dtype):
    require_config_value(config, "hidden_act", "silu", source)
    require_config_value(config, "use_sliding_window", False, source)
    return HuggingFaceQwen2Backbone(
        vocabulary_size=config["vocab_size"],
        num_layers=config["num_hidden_layers"],
        num_query_heads=config["num_attention_heads"],
        num_key_value_heads=config["num_key_value_heads"],
        hidden_dim=config["hidden_size"],
        intermediate_dim=config["intermediate_size"],
        rope_max_wavelength=rope_theta(config, source),
        layer_norm_epsilon=config.get("rms_norm_eps", 1e-6),
        max_sequence_length=config["max_position_embeddings"],
        dtype=dtype,
    )


def load_qwen2_weights(backbone, tensors):
    tensors.assign(backbone.token_embedding.embeddings, "embed_tokens.weight")
    for index, block in enumerate(decoder_blocks(backbone)):
        assign_decoder_block(tensors, block, f"layers.{index}")
    tensors.assign(backbone.layer_norm.scale, "norm.weight")
