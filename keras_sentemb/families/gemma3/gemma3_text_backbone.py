"""Gemma3TextBackbone: Gemma 3's text model (EmbeddingGemma's encoder when bidirectional), as Hugging Face computes it."""

import keras
import keras_hub
from keras import ops

from keras_sentemb.families.gemma3.gemma3_layer import Gemma3Layer, GemmaRMSNorm


@keras.saving.register_keras_serializable(package="keras_sentemb")
class Gemma3TextBackbone(keras_hub.models.Backbone):
    """Hugging Face's `Gemma3TextModel`:

        h₀ = √hidden_dim · E[token_ids]
        hᵢ = Gemma3Layer_i(hᵢ₋₁)        `layer_types[i]`: "sliding_attention" (window, `local_rope_theta`)
                                         or "full_attention" (`global_rope_theta`, `global_rope_scaling_factor`)
        sequence_output = N_final(h_L)

    keras-hub's `Gemma3Backbone` computes another function for Hugging Face configs in four ways, so this
    one is built here in the keras-hub way instead: keras-hub fixes the layer pattern (5 local, 1 global)
    and the rotary bases (10,000 / 1,000,000) where a config names its own; it scales queries by
    1/√head_dim or 1/√(hidden/heads) where Hugging Face uses 1/√`query_pre_attn_scalar`; and its
    bidirectional sliding window keeps W − W//2 − 1 positions on the left and W//2 on the right of a
    query where Hugging Face keeps |i − j| < W//2 + 1 on both sides (W the config's `sliding_window`).

    Args:
        vocabulary_size, num_layers, num_query_heads, num_key_value_heads, head_dim, hidden_dim,
            intermediate_dim: the model's sizes.
        layer_types: each layer's "sliding_attention" / "full_attention".
        sliding_window: the config's `sliding_window`.
        bidirectional: `use_bidirectional_attention` (EmbeddingGemma).
        global_rope_theta, local_rope_theta, global_rope_scaling_factor: rotary bases and the global
            layers' linear position scaling.
        query_pre_attn_scalar, attention_soft_cap, layer_norm_epsilon, attention_bias, hidden_activation:
            as config.json says.
        max_sequence_length: config `max_position_embeddings`.

    Example:
    >>> backbone = Gemma3TextBackbone(20, 2, 2, 1, 4, 8, 16, layer_types=["sliding_attention", "full_attention"],
    ...                               sliding_window=4, bidirectional=True)
    >>> [layer.window for layer in backbone.transformer_layers]
    [3, None]
    """

    def __init__(
        self,
        vocabulary_size,
        num_layers,
        num_query_heads,
        num_key_value_heads,
        head_dim,
        hidden_dim,
        intermediate_dim,
        layer_types=None,
        sliding_window=512,
        bidirectional=False,
        global_rope_theta=1_000_000.0,
        local_rope_theta=10_000.0,
        global_rope_scaling_factor=1.0,
        query_pre_attn_scalar=None,
        attention_soft_cap=None,
        layer_norm_epsilon=1e-6,
        attention_bias=False,
        hidden_activation="gelu_pytorch_tanh",
        max_sequence_length=2048,
        dtype=None,
        **kwargs,
    ):
        if layer_types is None:
            layer_types = ["sliding_attention" if (i + 1) % 6 else "full_attention" for i in range(num_layers)]
        layer_types = list(layer_types)
        if len(layer_types) != num_layers or set(layer_types) - {"full_attention", "sliding_attention"}:
            raise ValueError(
                f"Gemma3TextBackbone: layer_types must name full_attention or sliding_attention for each of the "
                f"{num_layers} layers, got {layer_types!r}"
            )
        # Hugging Face's effective window: a bidirectional config keeps |i − j| < W//2 + 1.
        window = sliding_window // 2 + 1 if bidirectional else sliding_window
        # === Layers ===
        self.token_embedding = keras.layers.Embedding(vocabulary_size, hidden_dim, dtype=dtype, name="token_embedding")
        self.transformer_layers = []
        for index, kind in enumerate(layer_types):
            local = kind == "sliding_attention"
            self.transformer_layers.append(
                Gemma3Layer(
                    hidden_dim,
                    num_query_heads,
                    num_key_value_heads,
                    head_dim,
                    intermediate_dim,
                    rope_theta=local_rope_theta if local else global_rope_theta,
                    rope_scaling_factor=1.0 if local else global_rope_scaling_factor,
                    window=window if local else None,
                    bidirectional=bidirectional,
                    query_pre_attn_scalar=query_pre_attn_scalar,
                    soft_cap=attention_soft_cap,
                    layer_norm_epsilon=layer_norm_epsilon,
                    attention_bias=attention_bias,
                    activation=hidden_activation,
                    dtype=dtype,
                    name=f"transformer_layer_{index}",
                )
            )
        self.final_norm = GemmaRMSNorm(layer_norm_epsilon, dtype=dtype, name="final_norm")

        # === Functional Model ===
        token_ids = keras.Input(shape=(None,), dtype="int32", name="token_ids")
        padding_mask = keras.Input(shape=(None,), dtype="int32", name="padding_mask")
        x = self.token_embedding(token_ids)
        x = x * ops.cast(hidden_dim**0.5, x.dtype)
        for layer in self.transformer_layers:
            x = layer(x, padding_mask=padding_mask)
        super().__init__(
            inputs={"token_ids": token_ids, "padding_mask": padding_mask},
            outputs=self.final_norm(x),
            dtype=dtype,
            **kwargs,
        )

        # === Config ===
        self.vocabulary_size, self.num_layers, self.hidden_dim = vocabulary_size, num_layers, hidden_dim
        self.num_query_heads, self.num_key_value_heads, self.head_dim = num_query_heads, num_key_value_heads, head_dim
        self.intermediate_dim, self.layer_types, self.sliding_window = intermediate_dim, layer_types, sliding_window
        self.bidirectional, self.global_rope_theta, self.local_rope_theta = (
            bidirectional,
            global_rope_theta,
            local_rope_theta,
        )
        self.global_rope_scaling_factor, self.query_pre_attn_scalar = global_rope_scaling_factor, query_pre_attn_scalar
        self.attention_soft_cap, self.layer_norm_epsilon = attention_soft_cap, layer_norm_epsilon
        self.attention_bias, self.hidden_activation = attention_bias, hidden_activation
        self.max_sequence_length = max_sequence_length

    def get_config(self):
        config = super().get_config()
        config.update(
            {
                key: getattr(self, key)
                for key in (
                    "vocabulary_size",
                    "num_layers",
                    "num_query_heads",
                    "num_key_value_heads",
                    "head_dim",
                    "hidden_dim",
                    "intermediate_dim",
                    "layer_types",
                    "sliding_window",
                    "bidirectional",
                    "global_rope_theta",
                    "local_rope_theta",
                    "global_rope_scaling_factor",
                    "query_pre_attn_scalar",
                    "attention_soft_cap",
                    "layer_norm_epsilon",
                    "attention_bias",
                    "hidden_activation",
                    "max_sequence_length",
                )
            }
        )
        return config
