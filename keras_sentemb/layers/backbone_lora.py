"""LoRA on a keras-hub backbone, with every other backbone weight frozen."""

# Every dense layer of a keras-hub TransformerEncoder (BERT, MiniLM): attention query, key,
# value and output projections, and both feed-forward layers. keras-hub's default LoRA
# targets are the query and value projections only.
ALL_TRANSFORMER_DENSE_LAYERS = (
    "query",
    "key",
    "value",
    "attention_output",
    "feedforward_intermediate_dense",
    "feedforward_output_dense",
)

# The LoRA target choices of the training scripts (`--lora-targets`): None = keras-hub's default.
LORA_TARGETS = {"attention": None, "all": ALL_TRANSFORMER_DENSE_LAYERS}


def enable_backbone_lora(backbone, rank, target_layer_names=None):
    """Adds rank-`rank` LoRA adapters to the backbone's attention query and value
    projections (keras-hub `Backbone.enable_lora`), or to the layers named in
    `target_layer_names` (e.g. `ALL_TRANSFORMER_DENSE_LAYERS`): W' = W + B·A, A and B
    trained, W frozen.

    keras-hub leaves the adapted layers' biases trainable; they are frozen here so that the
    LoRA kernels are the whole delta of the backbone (heads outside it stay trainable).
    """
    if not isinstance(rank, int) or rank < 1:
        raise ValueError(f"rank must be a positive int, got {rank!r}")
    backbone.enable_lora(rank, target_layer_names=target_layer_names)
    for variable in backbone.trainable_weights:
        if "lora_kernel" not in variable.path:
            variable.trainable = False
