"""The one place that reads keras-hub's private attributes of its Qwen2 decoder: everything else reads the
`DecoderBlock` this returns.

keras-hub keeps a `QwenTransformerDecoder`'s sub-layers as private attributes (`_self_attention_layer`,
`_feedforward_gate_dense`, …) and its `QwenAttention` the projections (`_query_dense`, …). A keras-hub release
that renames one breaks this file alone, and tests/test_architecture.py fails on any such read outside the
families' adapters. The classes are recognised by name (keras-hub exports none of them): no `keras_hub.src`
import.

>>> from keras_sentemb.families.qwen2.hugging_face_qwen2_backbone import HuggingFaceQwen2Backbone
>>> backbone = HuggingFaceQwen2Backbone(vocabulary_size=10, num_layers=1, num_query_heads=2,
...     num_key_value_heads=1, hidden_dim=8, intermediate_dim=16)
>>> block = decoder_blocks(backbone)[0]
>>> block.query_heads, block.key_value_heads, block.head_dim, block.query_norm
(2, 1, 4, None)
"""

from keras_sentemb.families.keras_hub_adapter import is_keras_hub_class
from keras_sentemb.families.pre_norm_decoder import DecoderBlock


def decoder_block(block):
    """The `DecoderBlock` of a keras-hub `QwenTransformerDecoder` with full attention, SiLU and no RoPE scaling
    other than linear; None for any other block."""
    if not is_keras_hub_class(block, "QwenTransformerDecoder"):
        return None
    attention = block._self_attention_layer
    if not is_keras_hub_class(attention, "QwenAttention") or attention.use_sliding_window_attention:
        return None
    if getattr(block.activation, "__name__", None) != "silu":
        return None
    if not all(
        is_keras_hub_class(norm, "QwenLayerNorm")
        for norm in (block._self_attention_layernorm, block._feedforward_layernorm)
    ):
        return None
    return DecoderBlock(
        input_norm=block._self_attention_layernorm,
        query=attention._query_dense,
        key=attention._key_dense,
        value=attention._value_dense,
        attention_output=attention._output_dense,
        rotary=attention.rotary_embedding_layer,
        query_heads=attention.num_query_heads,
        key_value_heads=attention.num_key_value_heads,
        head_dim=block.hidden_dim // attention.num_query_heads,
        feedforward_norm=block._feedforward_layernorm,
        gate=block._feedforward_gate_dense,
        up=block._feedforward_intermediate_dense,
        down=block._feedforward_output_dense,
    )


def decoder_blocks(backbone):
    """The `DecoderBlock`s of a keras-hub Qwen2 backbone, or None when any block is not one."""
    blocks = [decoder_block(block) for block in backbone.transformer_layers]
    return None if any(block is None for block in blocks) else blocks
