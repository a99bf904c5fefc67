"""Every transformer layer's output of a keras-hub backbone, as one functional model."""

import re

import keras

_LAYER_NAME = re.compile(r"^transformer_layer_(\d+)$")


def transformer_layer_states(backbone):
    """A `keras.Model` with the backbone's inputs and a list of each layer's token states.

    keras-hub encoder backbones (BERT and its relatives) name their blocks
    `transformer_layer_0 … transformer_layer_{L-1}`; the returned model outputs their
    outputs, first to last, each [batch, T, hidden_dim], the last one being the backbone's own
    output (`sequence_output`): for BERT (post-layer-norm) that is the last block's output, for
    pre-norm decoders (Qwen3) the final norm of it, as Hugging Face's last hidden state is. It
    shares the backbone's weights.
    """
    numbered = []
    for layer in backbone.layers:
        match = _LAYER_NAME.match(layer.name)
        if match:
            numbered.append((int(match.group(1)), layer))
    if not numbered:
        raise ValueError(
            f"{type(backbone).__name__} has no layers named 'transformer_layer_<i>'; "
            "SentenceEncoder supports keras-hub encoder backbones such as BertBackbone."
        )
    numbered.sort(key=lambda item: item[0])
    outputs = [layer.output for _, layer in numbered]
    sequence = backbone.output.get("sequence_output") if isinstance(backbone.output, dict) else backbone.output
    if sequence is not None:
        outputs[-1] = sequence
    return keras.Model(
        inputs=backbone.input,
        outputs=outputs,
        name=f"{backbone.name}_layer_states",
    )


def sentence_inputs_and_layer_states(backbone):
    """`(inputs, states)`: Keras Inputs {"token_ids", "padding_mask"} int32 [batch, tokens], the inputs of every model
    that reads a backbone's tokens (`SentenceEncoder`, `SparseEncoder`), and every block's states of the backbone on
    them (`transformer_layer_states`; segment ids all 0, fed only to a backbone that takes them)."""
    token_ids = keras.Input(shape=(None,), dtype="int32", name="token_ids")
    padding_mask = keras.Input(shape=(None,), dtype="int32", name="padding_mask")
    available = {"token_ids": token_ids, "segment_ids": keras.ops.zeros_like(token_ids), "padding_mask": padding_mask}
    backbone_inputs = backbone.input if isinstance(backbone.input, dict) else {}
    states = transformer_layer_states(backbone)({name: available[name] for name in backbone_inputs})
    return {"token_ids": token_ids, "padding_mask": padding_mask}, states
