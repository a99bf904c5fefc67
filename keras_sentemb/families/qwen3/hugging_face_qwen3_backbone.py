"""HuggingFaceQwen3Backbone: keras-hub's Qwen3 decoder, carrying the position limit of its config."""

import keras
import keras_hub


@keras.saving.register_keras_serializable(package="keras_sentemb")
class HuggingFaceQwen3Backbone(keras_hub.models.Qwen3Backbone):
    """keras-hub's `Qwen3Backbone` (causal self-attention with grouped key/value heads, RMSNorm on
    each head's queries and keys, rotary positions, SwiGLU, pre-norm blocks and a final RMSNorm):
    what Hugging Face's `Qwen3Model` computes for a config without sliding windows or RoPE scaling.
    The one addition is `max_sequence_length`, the config's `max_position_embeddings`, which the
    tokenizer's limit is held to as for every other backbone here (rotary positions have no table).

    Example:
    >>> backbone = HuggingFaceQwen3Backbone(vocabulary_size=10, num_layers=1, num_query_heads=2,
    ...     num_key_value_heads=1, head_dim=4, hidden_dim=8, intermediate_dim=16, max_sequence_length=64)
    >>> backbone.max_sequence_length, backbone.num_key_value_heads
    (64, 1)
    """

    def __init__(self, *args, max_sequence_length=32768, **kwargs):
        kwargs.setdefault("sliding_window_size", None)
        super().__init__(*args, **kwargs)
        self.max_sequence_length = max_sequence_length

    def get_config(self):
        return {**super().get_config(), "max_sequence_length": self.max_sequence_length}
