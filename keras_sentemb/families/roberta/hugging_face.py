"""RoBERTa and XLM-RoBERTa from Hugging Face: config.json → `HuggingFaceRobertaBackbone`, tensors → weights."""

from keras_sentemb.families.config_dimensions import encoder_dimensions
from keras_sentemb.families.family import ClassifierHead
from keras_sentemb.families.hugging_face_weights import assign_norm, assign_post_norm_block, require_config_value
from keras_sentemb.families.keras_hub_adapter import encoder_blocks
from keras_sentemb.families.masked_lm_head import roberta_lineage_head
from keras_sentemb.families.roberta.hugging_face_roberta_backbone import HuggingFaceRobertaBackbone

DIMENSIONS = encoder_dimensions(type_vocab_size=1, extra_integers={"pad_token_id": 1}, padding_in_positions=True)
CHECKPOINT_PREFIXES = ("roberta.",)
# keras-hub's block layers → RoBERTa's tensor names under encoder.layer.N (BERT's names)
BLOCK_TENSORS = {
    "query": "attention.self.query",
    "key": "attention.self.key",
    "value": "attention.self.value",
    "attention_output": "attention.output.dense",
    "attention_norm": "attention.output.LayerNorm",
    "intermediate": "intermediate.dense",
    "output": "output.dense",
    "feedforward_norm": "output.LayerNorm",
}


def build_roberta(config, source, dtype):
    require_config_value(config, "position_embedding_type", "absolute", source)
    require_config_value(config, "type_vocab_size", 1, source)
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


def load_roberta_weights(backbone, tensors):
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
    assign_norm(tensors, embeddings.layer_norm, "embeddings.LayerNorm")
    for index, block in enumerate(encoder_blocks(backbone)):
        assign_post_norm_block(tensors, block, f"encoder.layer.{index}", BLOCK_TENSORS)


def roberta_classifier_head(config):
    """`RobertaForSequenceClassification` / `XLMRobertaForSequenceClassification`:
    logits = out_proj(dropout(tanh(dense(dropout(h_<s>)))))."""
    return ClassifierHead(pooling="cls", tensors={"cls_dense": "classifier.dense", "logits": "classifier.out_proj"})


def roberta_masked_lm_head(config):
    """`RobertaForMaskedLM` / `XLMRobertaForMaskedLM`: the `lm_head.*` head (`masked_lm_head.roberta_lineage_head`)."""
    return roberta_lineage_head(config, default_epsilon=1e-12)
