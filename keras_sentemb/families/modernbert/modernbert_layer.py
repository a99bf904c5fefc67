"""ModernBertLayer: one pre-norm ModernBERT block, global or sliding-window attention with rotary positions."""

import keras
import keras_hub
import tensorflow as tf

from keras_sentemb.families.hidden_activations import hidden_activation
from keras_sentemb.families.inference_ops import dense, keras_layer_norm, rotary_tables_of, rotate, split_heads
from keras_sentemb.families.token_layouts import PaddedTokens


@keras.saving.register_keras_serializable(package="keras_sentemb")
class ModernBertLayer(keras.layers.Layer):
    """One ModernBERT encoder block (Warner et al. 2024), as Hugging Face's `ModernBertEncoderLayer`:

        a   = x + Wo · Attention(RoPE_θ(q), RoPE_θ(k), v),   (q, k, v) = Wqkv · LN_attn(x)
        out = a + Wo' · (GELU(u) ⊙ g),                        (u, g) = Wi · LN_mlp(a)

    (`modernbert_block`, the runtimes' math too) with bidirectional attention softmax(q·kᵀ/√d_head + M) over
    real tokens, M also closing keys
    further than `window` positions away in a local layer (|i − j| ≤ window, `window` being half of the
    config's `local_attention`); `LN_attn` is the identity in the first block (`first=True`); the
    norms have no bias unless `norm_bias`; the projections none unless `attention_bias`/`mlp_bias`.

    Args:
        hidden_dim, num_heads, intermediate_dim: the block's widths.
        rope_theta: the rotary base (global layers 160,000, local 10,000 in ModernBERT-base).
        window: None for global attention, else the half-window of local attention.
        first: no norm before the first block's attention.
        layer_norm_epsilon, norm_bias, attention_bias, mlp_bias: as config.json says.
        activation: Hugging Face's `hidden_activation` name ("gelu": the exact GELU).

    Example:
    >>> layer = ModernBertLayer(8, 2, 12, rope_theta=10000.0, window=1)
    >>> tuple(layer(keras.ops.ones((1, 4, 8)), padding_mask=keras.ops.ones((1, 4), "int32")).shape)
    (1, 4, 8)
    """

    def __init__(
        self,
        hidden_dim,
        num_heads,
        intermediate_dim,
        rope_theta=160000.0,
        window=None,
        first=False,
        layer_norm_epsilon=1e-5,
        norm_bias=False,
        attention_bias=False,
        mlp_bias=False,
        activation="gelu",
        **kwargs,
    ):
        super().__init__(**kwargs)
        if hidden_dim % num_heads:
            raise ValueError(f"ModernBertLayer: hidden_dim {hidden_dim} is not a multiple of num_heads {num_heads}")
        self.hidden_dim, self.num_heads, self.intermediate_dim = hidden_dim, num_heads, intermediate_dim
        self.head_dim = hidden_dim // num_heads
        self.rope_theta, self.window, self.first = float(rope_theta), window, bool(first)
        self.layer_norm_epsilon, self.norm_bias = layer_norm_epsilon, bool(norm_bias)
        self.attention_bias, self.mlp_bias, self.activation = bool(attention_bias), bool(mlp_bias), activation
        hidden_activation(activation)  # an unknown name fails here, not at the first call

        def norm(name):
            return keras.layers.LayerNormalization(
                epsilon=layer_norm_epsilon, center=self.norm_bias, dtype=self.dtype_policy, name=name
            )

        self.attention_norm = None if self.first else norm("attention_norm")
        self.qkv = keras.layers.Dense(3 * hidden_dim, use_bias=self.attention_bias, dtype=self.dtype_policy, name="qkv")
        self.attention_output = keras.layers.Dense(
            hidden_dim, use_bias=self.attention_bias, dtype=self.dtype_policy, name="attention_output"
        )
        self.rotary = keras_hub.layers.RotaryEmbedding(
            max_wavelength=self.rope_theta, sequence_axis=1, feature_axis=3, dtype=self.dtype_policy, name="rotary"
        )
        self.mlp_norm = norm("mlp_norm")
        self.mlp_input = keras.layers.Dense(
            2 * intermediate_dim, use_bias=self.mlp_bias, dtype=self.dtype_policy, name="mlp_input"
        )
        self.mlp_output = keras.layers.Dense(
            hidden_dim, use_bias=self.mlp_bias, dtype=self.dtype_policy, name="mlp_output"
        )

    def build(self, input_shape):
        if self.attention_norm is not None:
            self.attention_norm.build(input_shape)
        self.qkv.build(input_shape)
        self.attention_output.build(input_shape)
        self.mlp_norm.build(input_shape)
        self.mlp_input.build(input_shape)
        self.mlp_output.build((*input_shape[:-1], self.intermediate_dim))
        self.built = True

    def call(self, x, padding_mask):
        tokens = PaddedTokens.of_mask(padding_mask)
        return modernbert_block(self, x, tokens, tokens.positions())

    def compute_output_shape(self, input_shape):
        return input_shape

    def get_config(self):
        return {
            **super().get_config(),
            "hidden_dim": self.hidden_dim,
            "num_heads": self.num_heads,
            "intermediate_dim": self.intermediate_dim,
            "rope_theta": self.rope_theta,
            "window": self.window,
            "first": self.first,
            "layer_norm_epsilon": self.layer_norm_epsilon,
            "norm_bias": self.norm_bias,
            "attention_bias": self.attention_bias,
            "mlp_bias": self.mlp_bias,
            "activation": self.activation,
        }


def modernbert_block(layer, x, tokens, positions):
    """One `ModernBertLayer` on x [..., hidden] laid out as `tokens` says: its call (a padded batch) and every
    runtime's graph (`inference.modernbert_states`) compute this. Local layers attend by blocks
    (`attention_in_windows`: T·3B scores, B = min(T, window)), global ones over every real key."""
    normed = x if layer.attention_norm is None else keras_layer_norm(layer.attention_norm, x)
    query, key, value = (split_heads(part, layer.num_heads) for part in tf.split(dense(layer.qkv, normed), 3, axis=-1))
    cos, sin = rotary_tables_of(layer.rotary, positions, layer.head_dim)
    local = {} if layer.window is None else {"visible": (layer.window, layer.window), "in_blocks": True}
    context = tokens.attend(rotate(query, cos, sin), rotate(key, cos, sin), value, **local)
    x = x + dense(layer.attention_output, context)
    hidden, gate = tf.split(dense(layer.mlp_input, keras_layer_norm(layer.mlp_norm, x)), 2, axis=-1)
    return x + dense(layer.mlp_output, hidden_activation(layer.activation)(hidden) * gate)
