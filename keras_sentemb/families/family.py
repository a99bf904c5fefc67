"""Family: everything the runtimes and the loader need of one model family, in one record.

A family folder (`keras_sentemb/families/<family>/`) holds its Keras backbone (ours, or the adapter over
keras-hub's), its Hugging Face conversion (`hugging_face.py`: config.json → backbone, checkpoint tensor
names → weights, the `ArchitectureDimensions` row checked before anything is built) and its inference math
written once (`inference.py`: states in any token layout of `token_layouts`). Its `__init__.py` exports
`FAMILY`, a `Family`; `registry.FAMILIES` lists them, and every runtime and the loader read that list
instead of testing backbone classes in `if/elif` chains.
"""

import dataclasses
from collections.abc import Callable

# The dense layers of a block LoRA adapts, by the names keras-hub's `Backbone.enable_lora` matches: "attention"
# (the query and value projections, keras-hub's default) and "all" (every dense layer of a block). These are
# the names of keras-hub's `TransformerEncoder` (BERT, RoBERTa, DistilBERT) and of our MPNet layer.
TRANSFORMER_ENCODER_LORA = {
    "attention": ("query", "value"),
    "all": (
        "query",
        "key",
        "value",
        "attention_output",
        "feedforward_intermediate_dense",
        "feedforward_output_dense",
    ),
}
# keras-hub's Qwen decoders and our T5 layer: the same names with a gate in the feed-forward.
GATED_FEEDFORWARD_LORA = {
    "attention": ("query", "value"),
    "all": TRANSFORMER_ENCODER_LORA["all"][:-1] + ("feedforward_gate_dense", "feedforward_output_dense"),
}


@dataclasses.dataclass(frozen=True)
class Family:
    """One model family.

    Attributes:
        name: the family's name ("bert", "mpnet", …).
        model_types: the config.json `model_type` values it loads.
        checkpoint_prefixes: the tensor-name prefixes a task model adds ("bert.", "model.").
        dimensions: its `ArchitectureDimensions` row.
        build: (config, source, dtype) → a backbone without weights (config.json's values checked first).
        load_weights: (backbone, tensors) → None: the checkpoint's tensors into the backbone, by name.
        computes: backbone → whether `states` computes it (the family's class, float32, unquantised).
        states: (backbone, tokens, token_table=None, max_positions=None, projections=None) → every block's
            output, first to last, in the layout of `tokens` (the last one through the final norm where
            the backbone's output is).
        projections: backbone → each block's merged Q/K/V projection of this moment's weights (what the
            raw-string SavedModel keeps as variables), or None when the family merges nothing.
        last_token_states: (backbone, tokens) → `states` with the last block computed at each row's last
            real token only (padded layouts; last-token pooling), or None.
        positions_read_ids: its position ids are computed from the token ids (RoBERTa's and MPNet's count
            the ids that are not padding), so its ids cannot be renumbered (a pruned LiteRT vocabulary).
        classifier_head: config → the `ClassifierHead` of its `*ForSequenceClassification` (what a reranker
            folder of the family scores with), or None when the family has none here.
        backbone_types: the backbone classes of the family at any dtype (`registry.family_of`).
        lora_targets: {"attention": names, "all": names}: the layer names of a block LoRA adapts for each
            choice (`registry.lora_layer_names`).
        unread_modules: the checkpoint's modules a sentence embedding never reads (another task's head: "cls",
            "lm_head", a whole T5's "decoder"), left unread without an error; any other tensor left unread is one.
        unused_layers: the backbone's layers a sentence embedding never reads (BERT's pooler, `pooled_dense`):
            `SentenceEncoder` freezes them, so that training neither updates them nor warns of no gradient.
        language_model_head: the checkpoint names of its causal LM head's [vocabulary, hidden] rows, the first
            one present read (`lm_head.weight`, or the tied token embeddings): what a causal-LM reranker
            (Qwen3-Reranker) scores with; empty where the family has no such reranker here.
        masked_lm_head: config → the `MaskedLanguageModelHead` of its `*ForMaskedLM` (what a SPLADE folder of the
            family scores the vocabulary with), or None when the family has none.
    """

    name: str
    model_types: tuple
    checkpoint_prefixes: tuple
    dimensions: object
    build: Callable
    load_weights: Callable
    computes: Callable
    states: Callable
    projections: Callable | None = None
    last_token_states: Callable | None = None
    positions_read_ids: bool = False
    classifier_head: Callable | None = None
    backbone_types: tuple = ()
    lora_targets: dict = dataclasses.field(default_factory=lambda: TRANSFORMER_ENCODER_LORA)
    unread_modules: tuple = ()
    unused_layers: tuple = ()
    language_model_head: tuple = ()
    masked_lm_head: Callable | None = None


@dataclasses.dataclass(frozen=True)
class ClassifierHead:
    """A family's `*ForSequenceClassification` head as `CrossEncoder` computes it.

    Attributes:
        pooling: the `CrossEncoder` pooling ("pooler": BERT's tanh pooler; "cls": RoBERTa's dense/tanh head on
            the first token; "first" / "mean": the first token's state / the masked mean).
        tensors: {the CrossEncoder layer's name: the checkpoint's Linear or LayerNorm name} ("logits":
            "classifier").
        prediction_head: the `CrossEncoder` `prediction_head` (ModernBERT's dense → activation → norm), or None.
        backbone_tensors: checkpoint tensors the head reads through the backbone's own weights (BERT's pooler,
            `pooler.dense.weight`), which a reranker's checkpoint must hold.
    """

    pooling: str
    tensors: dict
    prediction_head: dict | None = None
    backbone_tensors: tuple = ()


@dataclasses.dataclass(frozen=True)
class MaskedLanguageModelHead:
    """A family's `*ForMaskedLM` head, as `layers.MaskedLanguageModelHead` computes it:

        logits = norm(act(h·Wᵀ + b))·Eᵀ + β

    with E the backbone's token embeddings (the decoder is tied to them, as every checkpoint here saves it).

    Attributes:
        dense / norm: the checkpoint names of the transform's Linear and LayerNorm ("cls.predictions.transform.dense").
        decoder: the checkpoint name of the decoder Linear; its weight, when the checkpoint stores one, must equal the
            token embeddings (an untied decoder is refused).
        bias: the names β may be stored under, the first present read ("cls.predictions.bias", or the decoder's).
        activation: Hugging Face's name of act ("gelu": the exact GELU).
        norm_epsilon: the LayerNorm's ε.
        dense_bias / norm_bias / decoder_bias: whether the transform, the norm and the decoder have biases
            (ModernBERT's `classifier_bias`, `norm_bias`, `decoder_bias`).
    """

    dense: str
    norm: str
    decoder: str
    bias: tuple
    activation: str
    norm_epsilon: float
    dense_bias: bool = True
    norm_bias: bool = True
    decoder_bias: bool = True
