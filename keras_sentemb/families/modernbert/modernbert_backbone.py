"""ModernBertBackbone: ModernBERT (Warner et al. 2024, "Smarter, Better, Faster, Longer") in the keras-hub way."""

import keras
import keras_hub

from keras_sentemb.families.modernbert.modernbert_layer import ModernBertLayer


@keras.saving.register_keras_serializable(package="keras_sentemb")
class ModernBertBackbone(keras_hub.models.Backbone):
    """ModernBERT's encoder, as Hugging Face's `ModernBertModel` computes it (keras-hub has none):

        h₀ = LN(E[token_ids])                       (no position table: rotary positions in attention)
        hᵢ = ModernBertLayer_i(hᵢ₋₁)                global attention every `global_every` layers (i mod
                                                    `global_every` = 0, base `global_rope_theta`), the
                                                    others local (|i − j| ≤ `window`, `local_rope_theta`)
        sequence_output = LN_final(h_L)

    Inputs `token_ids` and `padding_mask` [batch, T]; output the [batch, T, hidden_dim] states.
    Blocks are named `transformer_layer_<i>` like keras-hub's encoders, so `SentenceEncoder`, layer
    states and pooling take it as any other backbone.

    Args:
        vocabulary_size, num_layers, num_heads, hidden_dim, intermediate_dim: the model's sizes.
        max_sequence_length: the longest input (config `max_position_embeddings`, 8,192).
        layer_types: "full_attention" / "sliding_attention" for each layer (transformers 5's config),
            or None for every `global_every`-th layer global.
        window: half of `local_attention` (64 for ModernBERT's 128).
        global_rope_theta, local_rope_theta: the rotary bases of the two kinds of layers.
        layer_norm_epsilon, norm_bias, attention_bias, mlp_bias, hidden_activation: as config.json says.

    Example:
    >>> backbone = ModernBertBackbone(vocabulary_size=20, num_layers=3, num_heads=2, hidden_dim=8,
    ...                               intermediate_dim=12, window=2)
    >>> [layer.window for layer in backbone.transformer_layers]
    [None, 2, 2]
    """

    def __init__(
        self,
        vocabulary_size,
        num_layers,
        num_heads,
        hidden_dim,
        intermediate_dim,
        max_sequence_length=8192,
        layer_types=None,
        global_every=3,
        window=64,
        global_rope_theta=160000.0,
        local_rope_theta=10000.0,
        layer_norm_epsilon=1e-5,
        norm_bias=False,
        attention_bias=False,
        mlp_bias=False,
        hidden_activation="gelu",
        dtype=None,
        **kwargs,
    ):
        if layer_types is None:
            layer_types = [
                "full_attention" if i % global_every == 0 else "sliding_attention" for i in range(num_layers)
            ]
        layer_types = list(layer_types)
        unknown = sorted(set(layer_types) - {"full_attention", "sliding_attention"})
        if len(layer_types) != num_layers or unknown:
            raise ValueError(
                f"ModernBertBackbone: layer_types must name full_attention or sliding_attention for each of the "
                f"{num_layers} layers, got {layer_types!r}"
            )
        # === Layers ===
        self.token_embedding = keras.layers.Embedding(vocabulary_size, hidden_dim, dtype=dtype, name="token_embedding")
        self.embeddings_layer_norm = keras.layers.LayerNormalization(
            epsilon=layer_norm_epsilon, center=norm_bias, dtype=dtype, name="embeddings_layer_norm"
        )
        self.transformer_layers = []
        for index, kind in enumerate(layer_types):
            local = kind == "sliding_attention"
            self.transformer_layers.append(
                ModernBertLayer(
                    hidden_dim,
                    num_heads,
                    intermediate_dim,
                    rope_theta=local_rope_theta if local else global_rope_theta,
                    window=window if local else None,
                    first=index == 0,
                    layer_norm_epsilon=layer_norm_epsilon,
                    norm_bias=norm_bias,
                    attention_bias=attention_bias,
                    mlp_bias=mlp_bias,
                    activation=hidden_activation,
                    dtype=dtype,
                    name=f"transformer_layer_{index}",
                )
            )
        self.final_norm = keras.layers.LayerNormalization(
            epsilon=layer_norm_epsilon, center=norm_bias, dtype=dtype, name="final_norm"
        )

        # === Functional Model ===
        token_ids = keras.Input(shape=(None,), dtype="int32", name="token_ids")
        padding_mask = keras.Input(shape=(None,), dtype="int32", name="padding_mask")
        x = self.embeddings_layer_norm(self.token_embedding(token_ids))
        for layer in self.transformer_layers:
            x = layer(x, padding_mask=padding_mask)
        sequence_output = self.final_norm(x)
        super().__init__(
            inputs={"token_ids": token_ids, "padding_mask": padding_mask},
            outputs=sequence_output,
            dtype=dtype,
            **kwargs,
        )

        # === Config ===
        self.vocabulary_size = vocabulary_size
        self.num_layers = num_layers
        self.num_heads = num_heads
        self.hidden_dim = hidden_dim
        self.intermediate_dim = intermediate_dim
        self.max_sequence_length = max_sequence_length
        self.layer_types = layer_types
        self.global_every = global_every
        self.window = window
        self.global_rope_theta = global_rope_theta
        self.local_rope_theta = local_rope_theta
        self.layer_norm_epsilon = layer_norm_epsilon
        self.norm_bias = norm_bias
        self.attention_bias = attention_bias
        self.mlp_bias = mlp_bias
        self.hidden_activation = hidden_activation

    def get_config(self):
        config = super().get_config()
        config.update(
            {
                "vocabulary_size": self.vocabulary_size,
                "num_layers": self.num_layers,
                "num_heads": self.num_heads,
                "hidden_dim": self.hidden_dim,
                "intermediate_dim": self.intermediate_dim,
                "max_sequence_length": self.max_sequence_length,
                "layer_types": self.layer_types,
                "global_every": self.global_every,
                "window": self.window,
                "global_rope_theta": self.global_rope_theta,
                "local_rope_theta": self.local_rope_theta,
                "layer_norm_epsilon": self.layer_norm_epsilon,
                "norm_bias": self.norm_bias,
                "attention_bias": self.attention_bias,
                "mlp_bias": self.mlp_bias,
                "hidden_activation": self.hidden_activation,
            }
        )
        return config
