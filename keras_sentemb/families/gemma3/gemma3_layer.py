"""Gemma3Layer: one Gemma 3 block (sandwich RMSNorms, grouped-query attention with q/k norms), causal or
bidirectional, global or sliding-window."""

import keras
import keras_hub

from keras_sentemb.families.hidden_activations import hidden_activation
from keras_sentemb.families.inference_ops import dense, rms_norm, rotary_tables_of, rotate, split_heads
from keras_sentemb.families.token_layouts import PaddedTokens


@keras.saving.register_keras_serializable(package="keras_sentemb")
class GemmaRMSNorm(keras.layers.Layer):
    """Gemma's RMSNorm over the last axis, in float32: y = x / √(mean(x²) + ε) · (1 + w), w starting at 0.

    Example:
    >>> [round(float(v), 4) for v in GemmaRMSNorm()(keras.ops.convert_to_tensor([[3.0, 4.0]]))[0]]
    [0.8485, 1.1314]
    """

    def __init__(self, epsilon=1e-6, **kwargs):
        super().__init__(**kwargs)
        self.epsilon = epsilon

    def build(self, input_shape):
        self.scale = self.add_weight(name="scale", shape=(input_shape[-1],), initializer="zeros")
        self.built = True

    def call(self, x):
        return gemma_norm(self, x)

    def get_config(self):
        return {**super().get_config(), "epsilon": self.epsilon}


@keras.saving.register_keras_serializable(package="keras_sentemb")
class Gemma3Layer(keras.layers.Layer):
    """One Gemma 3 text block, as Hugging Face's `Gemma3DecoderLayer` computes it:

        a   = x + N_post_attn(Wo · Attention(RoPE_θ(N_q(Wq·N_in(x))), RoPE_θ(N_k(Wk·N_in(x))), Wv·N_in(x)))
        out = a + N_post_ffw(W_down · (GELU_tanh(W_gate·N_pre_ffw(a)) ⊙ W_up·N_pre_ffw(a)))

    with Gemma's RMSNorm N (scale 1 + w), key/value heads shared by groups of query heads, scores
    q·kᵀ / √`query_pre_attn_scalar` (soft-capped c·tanh(s/c) when `soft_cap`), masked to real keys and:
    - causal (`bidirectional=False`): j ≤ i, and i − j < `window` in a sliding layer;
    - bidirectional (EmbeddingGemma): every j, and |i − j| < `window` in a sliding layer.
    `window` is the effective one Hugging Face computes (for a bidirectional config, half the
    config's `sliding_window` plus one); None for a global layer.

    Example:
    >>> layer = Gemma3Layer(8, 2, 1, 4, 16, rope_theta=10000.0, window=2, bidirectional=True)
    >>> tuple(layer(keras.ops.ones((1, 5, 8)), padding_mask=keras.ops.ones((1, 5), "int32")).shape)
    (1, 5, 8)
    """

    def __init__(
        self,
        hidden_dim,
        num_query_heads,
        num_key_value_heads,
        head_dim,
        intermediate_dim,
        rope_theta=10000.0,
        rope_scaling_factor=1.0,
        window=None,
        bidirectional=False,
        query_pre_attn_scalar=None,
        soft_cap=None,
        layer_norm_epsilon=1e-6,
        attention_bias=False,
        activation="gelu_pytorch_tanh",
        **kwargs,
    ):
        super().__init__(**kwargs)
        if num_query_heads % num_key_value_heads:
            raise ValueError(
                f"Gemma3Layer: {num_query_heads} query heads are not a multiple of {num_key_value_heads} key/value heads"
            )
        self.hidden_dim, self.head_dim, self.intermediate_dim = hidden_dim, head_dim, intermediate_dim
        self.num_query_heads, self.num_key_value_heads = num_query_heads, num_key_value_heads
        self.rope_theta, self.rope_scaling_factor = float(rope_theta), float(rope_scaling_factor)
        self.window, self.bidirectional = window, bool(bidirectional)
        self.query_pre_attn_scalar = float(query_pre_attn_scalar or head_dim)
        self.soft_cap, self.layer_norm_epsilon = soft_cap, layer_norm_epsilon
        self.attention_bias, self.activation = bool(attention_bias), activation
        hidden_activation(activation)  # an unknown name fails here

        def norm(name):
            return GemmaRMSNorm(layer_norm_epsilon, dtype=self.dtype_policy, name=name)

        def dense(units, name, bias):
            return keras.layers.Dense(units, use_bias=bias, dtype=self.dtype_policy, name=name)

        self.input_norm, self.post_attention_norm = norm("input_norm"), norm("post_attention_norm")
        self.pre_feedforward_norm, self.post_feedforward_norm = (
            norm("pre_feedforward_norm"),
            norm("post_feedforward_norm"),
        )
        self.query_norm, self.key_norm = norm("query_norm"), norm("key_norm")
        self.query = dense(num_query_heads * head_dim, "query", self.attention_bias)
        self.key = dense(num_key_value_heads * head_dim, "key", self.attention_bias)
        self.value = dense(num_key_value_heads * head_dim, "value", self.attention_bias)
        self.attention_output = dense(hidden_dim, "attention_output", self.attention_bias)
        self.gate = dense(intermediate_dim, "gate", False)
        self.up = dense(intermediate_dim, "up", False)
        self.down = dense(hidden_dim, "down", False)
        self.rotary = keras_hub.layers.RotaryEmbedding(
            max_wavelength=self.rope_theta,
            scaling_factor=self.rope_scaling_factor,
            sequence_axis=1,
            feature_axis=3,
            dtype=self.dtype_policy,
            name="rotary",
        )

    def build(self, input_shape):
        for layer in (self.input_norm, self.post_attention_norm, self.pre_feedforward_norm, self.post_feedforward_norm):
            layer.build((*input_shape[:-1], self.hidden_dim))
        self.query_norm.build((None, None, None, self.head_dim))
        self.key_norm.build((None, None, None, self.head_dim))
        for layer in (self.query, self.key, self.value, self.gate, self.up):
            layer.build(input_shape)
        self.attention_output.build((*input_shape[:-1], self.num_query_heads * self.head_dim))
        self.down.build((*input_shape[:-1], self.intermediate_dim))
        self.built = True

    def call(self, x, padding_mask):
        tokens = PaddedTokens.of_mask(padding_mask)
        return gemma3_block(self, x, tokens, tokens.positions())

    def compute_output_shape(self, input_shape):
        return input_shape

    def get_config(self):
        return {
            **super().get_config(),
            "hidden_dim": self.hidden_dim,
            "num_query_heads": self.num_query_heads,
            "num_key_value_heads": self.num_key_value_heads,
            "head_dim": self.head_dim,
            "intermediate_dim": self.intermediate_dim,
            "rope_theta": self.rope_theta,
            "rope_scaling_factor": self.rope_scaling_factor,
            "window": self.window,
            "bidirectional": self.bidirectional,
            "query_pre_attn_scalar": self.query_pre_attn_scalar,
            "soft_cap": self.soft_cap,
            "layer_norm_epsilon": self.layer_norm_epsilon,
            "attention_bias": self.attention_bias,
            "activation": self.activation,
        }


def gemma_norm(layer, x):
    """A `GemmaRMSNorm`'s output in `rms_norm`'s form: x / sqrt(mean(x²) + ε) · (1 + w)."""
    return rms_norm(x, layer.epsilon, layer.scale, offset=1.0)


def _visible(layer):
    """The keys a query sees: (before, after) as `token_layouts.attention` takes it."""
    after = None if layer.bidirectional else 0
    if layer.window is None:
        return None if layer.bidirectional else (None, 0)
    return (layer.window - 1, layer.window - 1 if layer.bidirectional else after)


def gemma3_block(layer, x, tokens, positions):
    """One `Gemma3Layer` on x [..., hidden] laid out as `tokens` says: its call (a padded batch) and every
    runtime's graph (`inference.gemma3_states`) compute this."""
    normed = gemma_norm(layer.input_norm, x)
    query = gemma_norm(layer.query_norm, split_heads(dense(layer.query, normed), layer.num_query_heads))
    key = gemma_norm(layer.key_norm, split_heads(dense(layer.key, normed), layer.num_key_value_heads))
    value = split_heads(dense(layer.value, normed), layer.num_key_value_heads)
    cos, sin = rotary_tables_of(layer.rotary, positions, layer.head_dim)
    context = tokens.attend(
        rotate(query, cos, sin),
        rotate(key, cos, sin),
        value,
        visible=_visible(layer),
        scale=layer.query_pre_attn_scalar**-0.5,
        soft_cap=layer.soft_cap,
    )
    x = x + gemma_norm(layer.post_attention_norm, dense(layer.attention_output, context))
    normed = gemma_norm(layer.pre_feedforward_norm, x)
    mlp = dense(layer.down, hidden_activation(layer.activation)(dense(layer.gate, normed)) * dense(layer.up, normed))
    return x + gemma_norm(layer.post_feedforward_norm, mlp)
