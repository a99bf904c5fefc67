"""ModernBertLayer: one pre-norm ModernBERT block, global or sliding-window attention with rotary positions."""

import keras
import keras_hub
from keras import ops

from keras_sentemb.families.hidden_activations import hidden_activation
from keras_sentemb.families.inference_ops import masked_score
from keras_sentemb.families.token_layouts import attention_in_windows


@keras.saving.register_keras_serializable(package="keras_sentemb")
class ModernBertLayer(keras.layers.Layer):
    """One ModernBERT encoder block (Warner et al. 2024), as Hugging Face's `ModernBertEncoderLayer`:

        a   = x + Wo · Attention(RoPE_θ(q), RoPE_θ(k), v),   (q, k, v) = Wqkv · LN_attn(x)
        out = a + Wo' · (GELU(u) ⊙ g),                        (u, g) = Wi · LN_mlp(a)

    with bidirectional attention softmax(q·kᵀ/√d_head + M) over real tokens, M also closing keys
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
    >>> tuple(layer(ops.ones((1, 4, 8)), padding_mask=ops.ones((1, 4), "int32")).shape)
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

    def _global_attention(self, query, key, value, padding_mask):
        """softmax(q·kᵀ/√d_head + M)·v over every real key: [batch, T, heads, head_dim]."""
        scores = ops.einsum("bqhd,bkhd->bhqk", query, key) * ops.cast(self.head_dim**-0.5, query.dtype)
        mask = ops.cast(padding_mask, "bool")[:, None, None, :]
        weights = ops.softmax(ops.where(mask, scores, masked_score(scores.dtype)), axis=-1)
        return ops.einsum("bhqk,bkhd->bqhd", weights, value)

    def _local_attention(self, query, key, value, padding_mask):
        """The same softmax restricted to |i − j| ≤ window, computed block by block (`attention_in_windows`,
        the function every runtime's graph calls): [batch, T, heads, head_dim]. T·3B score entries instead
        of T² (B = min(T, window)), so a 2,048-token text's local layers compute as many scores as four
        512-token ones (ModernBERT-base: window 64; its time is what benchmarks/family_speed.py measures)."""
        batch, length = ops.shape(query)[0], ops.shape(query)[1]
        attended = attention_in_windows(query, key, value, padding_mask, self.window, self.head_dim**-0.5)
        return ops.reshape(attended, (batch, length, self.num_heads, self.head_dim))

    def call(self, x, padding_mask):
        batch, length = ops.shape(x)[0], ops.shape(x)[1]
        normed = x if self.attention_norm is None else self.attention_norm(x)
        qkv = ops.reshape(self.qkv(normed), (batch, length, 3, self.num_heads, self.head_dim))
        query, key, value = qkv[:, :, 0], qkv[:, :, 1], qkv[:, :, 2]
        query, key = self.rotary(query), self.rotary(key)
        attention = self._global_attention if self.window is None else self._local_attention
        attended = ops.reshape(attention(query, key, value, padding_mask), (batch, length, self.hidden_dim))
        x = x + self.attention_output(attended)
        hidden, gate = ops.split(self.mlp_input(self.mlp_norm(x)), 2, axis=-1)
        return x + self.mlp_output(hidden_activation(self.activation)(hidden) * gate)

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
