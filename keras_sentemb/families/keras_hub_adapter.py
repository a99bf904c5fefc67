"""The one place that reads keras-hub's private attributes of its encoder layers (BERT, RoBERTa, XLM-R and
DistilBERT run keras-hub's `TransformerEncoder`): everything else reads the `PostNormBlock` this returns.

keras-hub keeps a `TransformerEncoder`'s sub-layers as private attributes (`_self_attention_layer`,
`_feedforward_intermediate_dense`, …) and Keras' `MultiHeadAttention` its projections (`_query_dense`, …,
`_num_heads`). A keras-hub release that renames one breaks this file alone, and
tests/test_architecture.py fails on any such read outside the families' adapters.

>>> import keras_hub
>>> backbone = keras_hub.models.BertBackbone(vocabulary_size=10, num_layers=1, num_heads=2, hidden_dim=8,
...     intermediate_dim=16, max_sequence_length=8)
>>> encoder_block(backbone.transformer_layers[0]).heads
2
"""

import keras
import keras_hub

from keras_sentemb.families.post_norm_encoder import PostNormBlock


def is_keras_hub_class(layer, class_name):
    """Whether `layer` is an instance of keras-hub's class `class_name` (not a subclass): keras-hub exports
    few of its layer classes, and a class recognised by name needs no `keras_hub.src` import.

    >>> is_keras_hub_class(keras_hub.layers.TransformerEncoder(8, 2), "TransformerEncoder")
    True
    """
    kind = type(layer)
    return kind.__name__ == class_name and kind.__module__.startswith("keras_hub.")


def encoder_block(block):
    """The `PostNormBlock` of a keras-hub `TransformerEncoder` (post-layer-norm, Keras attention), or None
    for any other block (a pre-norm one, another attention layer)."""
    if type(block) is not keras_hub.layers.TransformerEncoder or block.normalize_first:
        return None
    attention = block._self_attention_layer
    if type(attention) is not keras.layers.MultiHeadAttention:
        return None
    return PostNormBlock(
        query=attention._query_dense,
        key=attention._key_dense,
        value=attention._value_dense,
        attention_output=attention._output_dense,
        output_input_axes=2,
        heads=attention._num_heads,
        attention_norm=block._self_attention_layer_norm,
        intermediate=block._feedforward_intermediate_dense,
        output=block._feedforward_output_dense,
        feedforward_norm=block._feedforward_layer_norm,
    )


def encoder_blocks(backbone):
    """The `PostNormBlock`s of a backbone of keras-hub `TransformerEncoder`s, or None when any block is not one."""
    blocks = [encoder_block(block) for block in backbone.transformer_layers]
    return None if any(block is None for block in blocks) else blocks


def set_feedforward_activation(block, activation):
    """Makes a `TransformerEncoder` compute `activation` in its feed-forward layer from now on (before its
    first trace): keras-hub fixes it at construction."""
    block.activation = activation
    block._feedforward_intermediate_dense.activation = activation
