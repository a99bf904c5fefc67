"""What a sentence-transformers SparseEncoder folder computes, read from its files (no PyTorch).

`read_sparse_encoder_folder(folder)` reads `modules.json` in the layouts sentence-transformers writes:

- SPLADE: a masked-LM Transformer (`MLMTransformer` of sentence-transformers 5, or 6.x's `Transformer` whose
  `sentence_bert_config.json` says `"transformer_task": "fill-mask"`), then `SpladePooling` (`pooling_strategy`
  max or sum, `activation_function` relu or log1p_relu): both queries and documents;
- inference-free SPLADE: a `Router` (`router_config.json`) whose "query" route is `SparseStaticEmbedding` (a
  tokenizer and one weight a vocabulary entry: no transformer) and whose "document" route is the SPLADE pipeline
  above (a "query" route of SPLADE too is read as such).

Any other module, order or route is a `ValueError` naming it; a SparseStaticEmbedding weight that is negative,
NaN or infinite, or whose length differs from its tokenizer's vocabulary, is one too. The token limit is
sentence-transformers' (`max_seq_length`, else the tokenizer's `model_max_length`).

Example (a tiny folder of the test fixtures):
>>> spec = read_sparse_encoder_folder("tests/fixtures/sparse_folders/bert_splade_max")
>>> spec.document.pooling, spec.document.activation, spec.query is None, spec.max_active_dims
('max', 'relu', True, None)
"""

import dataclasses
import os

import numpy as np
from safetensors.numpy import load_file

from keras_sentemb.pretrained.safetensors_header import read_safetensors_header
from keras_sentemb.pretrained.sentence_transformers_folder import module_kind, sentence_bert_config, token_limit
from keras_sentemb.utils.checked_files import read_json, read_json_if_present, read_json_object, regular_file_present

SPLADE_POOLINGS = ("max", "sum")
SPLADE_ACTIVATIONS = ("relu", "log1p_relu")
ROUTES = ("query", "document")
MASKED_LM_TASK = "fill-mask"


@dataclasses.dataclass(frozen=True)
class SpladeRoute:
    """A masked-LM transformer and SpladePooling (see the module docstring)."""

    transformer_folder: str
    pooling: str
    activation: str
    max_length: int | None
    do_lower_case: bool


@dataclasses.dataclass(frozen=True)
class StaticRoute:
    """SparseStaticEmbedding: w(text) = Σ over the distinct tokens t of the text (no special tokens) of
    weight[t]·e_t, with `weight` [vocabulary] read from the folder's model.safetensors."""

    folder: str
    weight: np.ndarray
    max_length: int | None


@dataclasses.dataclass(frozen=True)
class SparseEncoderFolder:
    """A SparseEncoder folder's model: `document` encodes documents (and any text when `query` is None),
    `query` the queries of an inference-free (Router) folder."""

    root: str
    document: SpladeRoute
    query: SpladeRoute | StaticRoute | None
    default_route: str
    prompts: dict
    default_prompt_name: str | None
    max_active_dims: int | None
    similarity_fn_name: str


def _splade_route(kinds, where):
    """The SpladeRoute of [(kind, folder), (kind, folder)]: a masked-LM Transformer, then SpladePooling."""
    names = [kind for kind, _ in kinds]
    if len(kinds) != 2 or names[0] not in ("Transformer", "MLMTransformer") or names[1] != "SpladePooling":
        raise ValueError(
            f"{where}: modules {names} are not a sparse encoder; supported: a masked-LM Transformer then "
            "SpladePooling, or a Router whose query route is SparseStaticEmbedding"
        )
    transformer_folder, pooling_folder = kinds[0][1], kinds[1][1]
    sbert_config, sbert_config_name = sentence_bert_config(transformer_folder)
    task = sbert_config.get("transformer_task", MASKED_LM_TASK if names[0] == "MLMTransformer" else None)
    if task != MASKED_LM_TASK:
        raise ValueError(
            f"{os.path.join(transformer_folder, sbert_config_name)}: transformer_task {task!r} before SpladePooling; "
            f"a sparse encoder's Transformer computes the masked-LM logits ({MASKED_LM_TASK!r})"
        )
    config = read_json_if_present(pooling_folder, "config.json")
    source = os.path.join(pooling_folder, "config.json")
    pooling = config.get("pooling_strategy", "max")
    if pooling not in SPLADE_POOLINGS:
        raise ValueError(f"{source}: pooling_strategy {pooling!r} is not supported; supported: max, sum")
    activation = config.get("activation_function", "relu")
    if activation not in SPLADE_ACTIVATIONS:
        raise ValueError(f"{source}: activation_function {activation!r} is not supported; supported: relu, log1p_relu")
    return SpladeRoute(
        transformer_folder=transformer_folder,
        pooling=pooling,
        activation=activation,
        max_length=token_limit(transformer_folder, sbert_config, sbert_config_name),
        do_lower_case=bool(sbert_config.get("do_lower_case", False)),
    )


def static_weight(folder):
    """SparseStaticEmbedding's `weight` [vocabulary] (float32) of its model.safetensors, checked: finite and ≥ 0."""
    path = os.path.join(folder, "model.safetensors")
    if not regular_file_present(path):
        raise FileNotFoundError(f"{folder}: SparseStaticEmbedding without model.safetensors")
    entries = read_safetensors_header(path)
    if set(entries) != {"weight"} or len(entries["weight"].shape) != 1:
        raise ValueError(f"{path}: expected one 1-D tensor 'weight', found {sorted(entries)}")
    weight = np.asarray(load_file(path)["weight"], dtype=np.float32)
    bad = np.flatnonzero(~np.isfinite(weight) | (weight < 0))
    if bad.size:
        raise ValueError(
            f"{path}: {bad.size} static weight(s) are negative, NaN or infinite (the first: token id {int(bad[0])}, "
            f"{float(weight[bad[0]])}); a SparseStaticEmbedding weight is ≥ 0"
        )
    return weight


def _static_route(folder):
    tokenizer_config = read_json_if_present(folder, "tokenizer_config.json")
    limit = tokenizer_config.get("model_max_length")
    return StaticRoute(
        folder=folder,
        weight=static_weight(folder),
        max_length=int(limit) if isinstance(limit, (int, float)) and 0 < limit < 10**9 else None,
    )


def _router(root, entry, modules_path):
    """(the document route, the query route, the default route) of a Router module."""
    folder = os.path.join(root, entry.get("path") or "")
    path = os.path.join(folder, "router_config.json")
    config = read_json_object(path)
    types, structure = config.get("types"), config.get("structure")
    if not isinstance(types, dict) or not isinstance(structure, dict):
        raise ValueError(f"{path}: a Router needs 'types' and 'structure' objects")
    missing = [route for route in ROUTES if not isinstance(structure.get(route), list) or not structure.get(route)]
    if missing:
        raise ValueError(
            f"{path}: the Router has no {' and no '.join(repr(r) for r in missing)} route (routes: {sorted(structure)}); "
            "a sparse encoder's Router routes 'query' and 'document'"
        )
    routes = {}
    for route in ROUTES:
        kinds = []
        for name in structure[route]:
            if not isinstance(name, str) or name not in types:
                raise ValueError(f"{path}: route {route!r} names module {name!r}, which 'types' does not list")
            kind = module_kind({"type": types[name], "path": name, "name": name}, path)
            kinds.append((kind, os.path.join(folder, name)))
        routes[route] = kinds
    document = _splade_route(routes["document"], f"{path}: route 'document'")
    query_kinds = routes["query"]
    if [kind for kind, _ in query_kinds] == ["SparseStaticEmbedding"]:
        query = _static_route(query_kinds[0][1])
    else:
        query = _splade_route(query_kinds, f"{path}: route 'query'")
    parameters = config.get("parameters") if isinstance(config.get("parameters"), dict) else {}
    default_route = parameters.get("default_route") or "document"
    if default_route not in ROUTES:
        raise ValueError(f"{path}: default_route {default_route!r} is not one of {', '.join(ROUTES)}")
    return document, query, default_route


def is_sparse_encoder_folder(folder):
    """Whether `folder` is a sentence-transformers SparseEncoder folder: its config_sentence_transformers.json says
    `"model_type": "SparseEncoder"`, or its modules.json holds SpladePooling or a Router (files that cannot be read
    are left to the loader to name)."""
    root = os.fspath(folder)
    try:
        if read_json_if_present(root, "config_sentence_transformers.json").get("model_type") == "SparseEncoder":
            return True
        entries = (
            read_json(os.path.join(root, "modules.json"))
            if regular_file_present(os.path.join(root, "modules.json"))
            else []
        )
    except ValueError:
        return False
    kinds = {str(entry.get("type", "")).rsplit(".", 1)[-1] for entry in entries if isinstance(entry, dict)}
    return bool(kinds & {"SpladePooling", "Router", "SparseStaticEmbedding"})


def read_sparse_encoder_folder(folder):
    """A `SparseEncoderFolder` for `folder` (see the module docstring)."""
    root = os.fspath(folder)
    modules_path = os.path.join(root, "modules.json")
    if not regular_file_present(modules_path):
        raise FileNotFoundError(f"{root}: no modules.json (not a sentence-transformers SparseEncoder folder)")
    entries = read_json(modules_path)
    if not isinstance(entries, list) or not entries:
        raise ValueError(f"{modules_path}: expected a non-empty list of modules")
    kinds = [(module_kind(entry, modules_path), entry) for entry in entries]
    if [kind for kind, _ in kinds] == ["Router"]:
        document, query, default_route = _router(root, kinds[0][1], modules_path)
    else:
        located = [(kind, os.path.join(root, entry.get("path") or "")) for kind, entry in kinds]
        document, query, default_route = _splade_route(located, modules_path), None, "document"
    settings = read_json_if_present(root, "config_sentence_transformers.json")
    source = os.path.join(root, "config_sentence_transformers.json")
    prompts = settings.get("prompts") or {}
    if not isinstance(prompts, dict) or not all(isinstance(v, str) for v in prompts.values()):
        raise ValueError(f"{source}: prompts must be an object of strings")
    default_prompt_name = settings.get("default_prompt_name")
    if default_prompt_name is not None and default_prompt_name not in prompts:
        raise ValueError(f"{source}: default_prompt_name {default_prompt_name!r} is not among the prompts")
    max_active_dims = settings.get("max_active_dims")
    if max_active_dims is not None and (type(max_active_dims) is not int or max_active_dims < 1):
        raise ValueError(f"{source}: max_active_dims must be an integer ≥ 1, got {max_active_dims!r}")
    similarity = settings.get("similarity_fn_name") or "dot"
    if similarity != "dot":
        raise ValueError(f"{source}: similarity_fn_name {similarity!r}: a sparse encoder here scores by 'dot'")
    return SparseEncoderFolder(
        root=root,
        document=document,
        query=query,
        default_route=default_route,
        prompts={name: text for name, text in prompts.items() if text},
        default_prompt_name=default_prompt_name if prompts.get(default_prompt_name) else None,
        max_active_dims=max_active_dims,
        similarity_fn_name=similarity,
    )
