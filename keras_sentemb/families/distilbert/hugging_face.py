"""DistilBERT from Hugging Face: config.json → keras-hub's `DistilBertBackbone`, tensors → its weights."""

import keras_hub

from keras_sentemb.families.config_dimensions import REQUIRED, ArchitectureDimensions
from keras_sentemb.families.family import MaskedLanguageModelHead
from keras_sentemb.families.hidden_activations import hidden_activation
from keras_sentemb.families.hugging_face_weights import assign_norm, assign_post_norm_block
from keras_sentemb.families.keras_hub_adapter import encoder_blocks

DIMENSIONS = ArchitectureDimensions(
    integers={
        "vocab_size": REQUIRED,
        "dim": REQUIRED,
        "n_layers": REQUIRED,
        "n_heads": REQUIRED,
        "hidden_dim": REQUIRED,
        "max_position_embeddings": REQUIRED,
    },
    witnesses=(
        ("vocab_size", "embeddings.word_embeddings.weight", 0),
        ("dim", "embeddings.word_embeddings.weight", 1),
        ("max_position_embeddings", "embeddings.position_embeddings.weight", 0),
        ("hidden_dim", "transformer.layer.0.ffn.lin1.weight", 0),
    ),
    layers=("n_layers", r"transformer\.layer\.(\d+)\."),
    heads=("n_heads", "dim"),
    activations=("activation",),
)
CHECKPOINT_PREFIXES = ("distilbert.",)
BLOCK_TENSORS = {
    "query": "attention.q_lin",
    "key": "attention.k_lin",
    "value": "attention.v_lin",
    "attention_output": "attention.out_lin",
    "attention_norm": "sa_layer_norm",
    "intermediate": "ffn.lin1",
    "output": "ffn.lin2",
    "feedforward_norm": "output_layer_norm",
}


def build_distilbert(config, source, dtype):
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


def load_distilbert_weights(backbone, tensors):
    tensors.assign(backbone.embeddings.token_embedding.embeddings, "embeddings.word_embeddings.weight")
    tensors.assign(backbone.embeddings.position_embedding.position_embeddings, "embeddings.position_embeddings.weight")
    assign_norm(tensors, backbone.embeddings_layer_norm, "embeddings.LayerNorm")
    for index, block in enumerate(encoder_blocks(backbone)):
        assign_post_norm_block(tensors, block, f"transformer.layer.{index}", BLOCK_TENSORS)


def distilbert_masked_lm_head(config):
    """`DistilBertForMaskedLM`: logits = vocab_layer_norm(act(vocab_transform(h)))·Eᵀ + bias (ε 1e-12)."""
    return MaskedLanguageModelHead(
        dense="vocab_transform",
        norm="vocab_layer_norm",
        decoder="vocab_projector",
        bias=("vocab_projector.bias",),
        activation=config.get("activation", "gelu"),
        norm_epsilon=1e-12,
    )
