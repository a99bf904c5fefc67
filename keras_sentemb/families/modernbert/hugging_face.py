"""ModernBERT from Hugging Face: config.json (either format) → `ModernBertBackbone`, tensors → its weights."""

from keras_sentemb.families.config_dimensions import EPSILON, LAYER_TYPES, REQUIRED, ArchitectureDimensions
from keras_sentemb.families.family import ClassifierHead, MaskedLanguageModelHead
from keras_sentemb.families.hidden_activations import hidden_activation
from keras_sentemb.families.modernbert.modernbert_backbone import ModernBertBackbone

DIMENSIONS = ArchitectureDimensions(
    integers={
        "vocab_size": REQUIRED,
        "hidden_size": REQUIRED,
        "num_hidden_layers": REQUIRED,
        "num_attention_heads": REQUIRED,
        "intermediate_size": REQUIRED,
        "max_position_embeddings": 8192,
        "global_attn_every_n_layers": 3,
    },
    witnesses=(
        ("vocab_size", "embeddings.tok_embeddings.weight", 0),
        ("hidden_size", "embeddings.tok_embeddings.weight", 1),
        ("hidden_size", "layers.0.attn.Wo.weight", 0),
        ("intermediate_size", "layers.0.mlp.Wo.weight", 1),
    ),
    layers=("num_hidden_layers", r"layers\.(\d+)\."),
    heads=("num_attention_heads", "hidden_size"),
    numbers={"norm_eps": EPSILON},
    activations=("hidden_activation",),
    layer_types=LAYER_TYPES,
    rope="per_layer_type",
    rotary_bases=("global_rope_theta", "local_rope_theta"),
)
CHECKPOINT_PREFIXES = ("model.",)


def rope_thetas(config, source):
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


def build_modernbert(config, source, dtype):
    global_theta, local_theta = rope_thetas(config, source)
    local_attention = config.get("local_attention", 128)
    if type(local_attention) is not int or local_attention < 2:
        raise ValueError(f"{source}: local_attention must be an integer ≥ 2, got {local_attention!r}")
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
        global_every=config.get("global_attn_every_n_layers", 3),
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


def _norm(tensors, layer, name):
    tensors.assign(layer.gamma, f"{name}.weight")
    if layer.center:
        tensors.assign(layer.beta, f"{name}.bias")


def load_modernbert_weights(backbone, tensors):
    tensors.assign(backbone.token_embedding.embeddings, "embeddings.tok_embeddings.weight")
    _norm(tensors, backbone.embeddings_layer_norm, "embeddings.norm")
    for index, block in enumerate(backbone.transformer_layers):
        at = f"layers.{index}"
        if block.attention_norm is not None:
            _norm(tensors, block.attention_norm, f"{at}.attn_norm")
        tensors.assign_linear(block.qkv, f"{at}.attn.Wqkv")
        tensors.assign_linear(block.attention_output, f"{at}.attn.Wo")
        _norm(tensors, block.mlp_norm, f"{at}.mlp_norm")
        tensors.assign_linear(block.mlp_input, f"{at}.mlp.Wi")
        tensors.assign_linear(block.mlp_output, f"{at}.mlp.Wo")
    _norm(tensors, backbone.final_norm, "final_norm")


CLASSIFIER_POOLINGS = {"cls": "first", "mean": "mean"}


def modernbert_classifier_head(config):
    """`ModernBertForSequenceClassification`: pooled = h_[CLS] (`classifier_pooling` "cls") or the masked mean
    ("mean"); logits = classifier(dropout(norm(act(dense(pooled))))), the dense's bias by `classifier_bias`,
    act by `classifier_activation`, the norm's bias by `norm_bias`."""
    pooling = config.get("classifier_pooling", "cls")
    if pooling not in CLASSIFIER_POOLINGS:
        raise ValueError(f"classifier_pooling {pooling!r} is not supported; supported: cls, mean")
    activation = config.get("classifier_activation", "gelu")
    hidden_activation(activation)  # refused here when unknown
    return ClassifierHead(
        pooling=CLASSIFIER_POOLINGS[pooling],
        tensors={"head_dense": "head.dense", "head_norm": "head.norm", "logits": "classifier"},
        prediction_head={
            "activation": activation,
            "use_bias": bool(config.get("classifier_bias", False)),
            "norm_epsilon": float(config.get("norm_eps", 1e-5)),
            "norm_bias": bool(config.get("norm_bias", False)),
        },
    )


def modernbert_masked_lm_head(config):
    """`ModernBertForMaskedLM`: logits = norm(act(dense(h)))·Eᵀ + bias, act by `classifier_activation`, the biases
    by `classifier_bias`, `norm_bias` and `decoder_bias`."""
    return MaskedLanguageModelHead(
        dense="head.dense",
        norm="head.norm",
        decoder="decoder",
        bias=("decoder.bias",),
        activation=config.get("classifier_activation", "gelu"),
        norm_epsilon=float(config.get("norm_eps", 1e-5)),
        dense_bias=bool(config.get("classifier_bias", False)),
        norm_bias=bool(config.get("norm_bias", False)),
        decoder_bias=bool(config.get("decoder_bias", True)),
    )
