"""MPNet from Hugging Face: config.json → `MPNetBackbone`, checkpoint tensors → its weights."""

from keras_sentemb.families.config_dimensions import encoder_dimensions
from keras_sentemb.families.family import ClassifierHead
from keras_sentemb.families.hugging_face_weights import assign_norm, assign_post_norm_block
from keras_sentemb.families.masked_lm_head import roberta_lineage_head
from keras_sentemb.families.mpnet.mpnet_backbone import MPNetBackbone
from keras_sentemb.families.mpnet.mpnet_transformer_layer import mpnet_block

DIMENSIONS = encoder_dimensions(
    type_vocab_size=None,
    extra_integers={"pad_token_id": 1, "relative_attention_num_buckets": 32},
    extra_witnesses=(
        ("relative_attention_num_buckets", "encoder.relative_attention_bias.weight", 0),
        ("num_attention_heads", "encoder.relative_attention_bias.weight", 1),
    ),
    padding_in_positions=True,
)
CHECKPOINT_PREFIXES = ("mpnet.",)
BLOCK_TENSORS = {
    "query": "attention.attn.q",
    "key": "attention.attn.k",
    "value": "attention.attn.v",
    "attention_output": "attention.attn.o",
    "attention_norm": "attention.LayerNorm",
    "intermediate": "intermediate.dense",
    "output": "output.dense",
    "feedforward_norm": "output.LayerNorm",
}


def build_mpnet(config, source, dtype):
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


def load_mpnet_weights(backbone, tensors):
    embeddings = backbone.embeddings
    tensors.assign(embeddings.token_embedding.embeddings, "embeddings.word_embeddings.weight")
    tensors.assign(embeddings.position_embedding.embeddings, "embeddings.position_embeddings.weight")
    assign_norm(tensors, embeddings.layer_norm, "embeddings.LayerNorm")
    tensors.assign(backbone.relative_position_bias.embeddings, "encoder.relative_attention_bias.weight")
    for index, layer in enumerate(backbone.transformer_layers):
        assign_post_norm_block(tensors, mpnet_block(layer), f"encoder.layer.{index}", BLOCK_TENSORS)


def mpnet_classifier_head(config):
    """`MPNetForSequenceClassification`: logits = out_proj(dropout(tanh(dense(dropout(h_<s>)))))."""
    return ClassifierHead(pooling="cls", tensors={"cls_dense": "classifier.dense", "logits": "classifier.out_proj"})


def mpnet_masked_lm_head(config):
    """`MPNetForMaskedLM`: the `lm_head.*` head of RoBERTa's lineage (`masked_lm_head.roberta_lineage_head`)."""
    return roberta_lineage_head(config, default_epsilon=1e-12)
