"""The one place that reads keras-hub's private attributes of its Qwen3 decoder: everything else reads the
`DecoderBlock` this returns.

keras-hub keeps a `Qwen3TransformerDecoder`'s sub-layers as private attributes (`_self_attention_layer`,
`_feedforward_gate_dense`, …) and its `Qwen3Attention` the projections and their norms (`_query_dense`,
`_query_dense_layer_norm`, …). A keras-hub release that renames one breaks this file alone, and
tests/test_architecture.py fails on any such read outside the families' adapters. The classes are recognised
by name (keras-hub exports none of them): no `keras_hub.src` import.

>>> from keras_sentemb.families.qwen3.hugging_face_qwen3_backbone import HuggingFaceQwen3Backbone
>>> backbone = HuggingFaceQwen3Backbone(vocabulary_size=10, num_layers=1, num_query_heads=2,
...     num_key_value_heads=1, head_dim=4, hidden_dim=8, intermediate_dim=16)
>>> block = decoder_blocks(backbone)[0]
>>> block.query_heads, block.key_value_heads, block.head_dim
(2, 1, 4)
"""

from keras_sentemb.families.keras_hub_adapter import is_keras_hub_class
from keras_sentemb.families.pre_norm_decoder import DecoderBlock


def decoder_block(block):
    """The `DecoderBlock` of a keras-hub `Qwen3TransformerDecoder` with full attention, SiLU and no YaRN;
    None for any other block."""
    if not is_keras_hub_class(block, "Qwen3TransformerDecoder"):
        return None
    attention = block._self_attention_layer
    if not is_keras_hub_class(attention, "Qwen3Attention") or attention.sliding_window_size:
        return None
    if attention.rotary_embedding_layer.rope_type == "yarn" or getattr(block.activation, "__name__", None) != "silu":
        return None
    norms = (
        block._self_attention_layernorm,
        attention._query_dense_layer_norm,
        attention._key_dense_layer_norm,
        block._feedforward_layernorm,
    )
    if not all(is_keras_hub_class(norm, "Qwen3LayerNorm") for norm in norms):
        return None
    return DecoderBlock(
        input_norm=block._self_attention_layernorm,
        query=attention._query_dense,
        key=attention._key_dense,
        value=attention._value_dense,
        query_norm=attention._query_dense_layer_norm,
        key_norm=attention._key_dense_layer_norm,
        attention_output=attention._output_dense,
        rotary=attention.rotary_embedding_layer,
        query_heads=attention.num_query_heads,
        key_value_heads=attention.num_key_value_heads,
        head_dim=attention.head_dim,
        feedforward_norm=block._feedforward_layernorm,
        gate=block._feedforward_gate_dense,
        up=block._feedforward_intermediate_dense,
        down=block._feedforward_output_dense,
    )


def decoder_blocks(backbone):
    """The `DecoderBlock`s of a keras-hub Qwen3 backbone, or None when any block is not one."""
    blocks = [decoder_block(block) for block in backbone.transformer_layers]
    return None if any(block is None for block in blocks) else blocks
