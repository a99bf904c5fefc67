"""HuggingFaceQwen2Backbone: keras-hub's Qwen2 decoder, carrying the position limit of its config."""

import keras
import keras_hub


@keras.saving.register_keras_serializable(package="keras_sentemb")
class HuggingFaceQwen2Backbone(keras_hub.models.QwenBackbone):
    """keras-hub's `QwenBackbone` (causal self-attention with grouped key/value heads and biased query, key and
    value projections, rotary positions, SwiGLU, pre-norm blocks and a final RMSNorm): what Hugging Face's
    `Qwen2Model` computes for a config without sliding windows or RoPE scaling. The one addition is
    `max_sequence_length`, the config's `max_position_embeddings`, which the tokenizer's limit is held to as
    for every other backbone here (rotary positions have no table). Its head size is hidden / query heads.

    Example:
    >>> backbone = HuggingFaceQwen2Backbone(vocabulary_size=10, num_layers=1, num_query_heads=2,
    ...     num_key_value_heads=1, hidden_dim=8, intermediate_dim=16, max_sequence_length=64)
    >>> backbone.max_sequence_length, backbone.num_key_value_heads
    (64, 1)
    """

    def __init__(self, *args, max_sequence_length=32768, **kwargs):
        super().__init__(*args, **kwargs)
        self.max_sequence_length = max_sequence_length

    def get_config(self):
        return {**super().get_config(), "max_sequence_length": self.max_sequence_length}
