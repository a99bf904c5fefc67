"""BERT from Hugging Face: config.json → `HuggingFaceBertBackbone`, checkpoint tensors → its weights."""

from keras_sentemb.families.bert.hugging_face_bert_backbone import HuggingFaceBertBackbone
from keras_sentemb.families.config_dimensions import encoder_dimensions
from keras_sentemb.families.family import ClassifierHead, MaskedLanguageModelHead
from keras_sentemb.families.hugging_face_weights import assign_norm, assign_post_norm_block, require_config_value
from keras_sentemb.families.keras_hub_adapter import encoder_blocks

DIMENSIONS = encoder_dimensions(type_vocab_size=2)
CHECKPOINT_PREFIXES = ("bert.",)
# keras-hub's block layers → BERT's tensor names under encoder.layer.N
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


def build_bert(config, source, dtype):
    require_config_value(config, "position_embedding_type", "absolute", source)
    require_config_value(config, "layer_norm_eps", 1e-12, source)
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


def load_bert_weights(backbone, tensors):
    tensors.assign(backbone.token_embedding.embeddings, "embeddings.word_embeddings.weight")
    tensors.assign(backbone.position_embedding.position_embeddings, "embeddings.position_embeddings.weight")
    tensors.assign(backbone.segment_embedding.embeddings, "embeddings.token_type_embeddings.weight")
    assign_norm(tensors, backbone.embeddings_layer_norm, "embeddings.LayerNorm")
    for index, block in enumerate(encoder_blocks(backbone)):
        assign_post_norm_block(tensors, block, f"encoder.layer.{index}", BLOCK_TENSORS)
    # BERT's pooler (tanh(W·h_CLS + b)): no sentence embedding reads it, a cross-encoder does.
    if "pooler.dense.weight" in tensors:
        tensors.assign_linear(backbone.pooled_dense, "pooler.dense")


def bert_classifier_head(config):
    """`BertForSequenceClassification`: logits = classifier(dropout(pooler(h_[CLS]))); the pooler comes with
    the backbone's weights."""
    return ClassifierHead(pooling="pooler", tensors={"logits": "classifier"}, backbone_tensors=("pooler.dense.weight",))


def bert_masked_lm_head(config):
    """`BertForMaskedLM`: logits = LayerNorm(act(dense(h)))·Eᵀ + bias, act by `hidden_act`."""
    return MaskedLanguageModelHead(
        dense="cls.predictions.transform.dense",
        norm="cls.predictions.transform.LayerNorm",
        decoder="cls.predictions.decoder",
        bias=("cls.predictions.bias", "cls.predictions.decoder.bias"),
        activation=config.get("hidden_act", "gelu"),
        norm_epsilon=float(config.get("layer_norm_eps", 1e-12)),
    )
