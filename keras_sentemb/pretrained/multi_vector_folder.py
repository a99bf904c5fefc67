"""What a sentence-transformers MultiVectorEncoder (ColBERT) folder computes, read from its files (no PyTorch).

`read_multi_vector_folder(folder)` reads the two layouts late-interaction models are published in:

- sentence-transformers ≥ 6 (`"model_type": "MultiVectorEncoder"`): modules.json Transformer → Dense* on token
  embeddings → MultiVectorMask → Normalize (token embeddings), the ColBERT knobs on the Transformer's
  `sentence_bert_config.json` (`query_length`, `document_length`, `query_expansion` {strategy "fixed" | "min",
  attend, token, length}), the markers as `prompts` ({"query": "[Q] ", "document": "[D] "});
- PyLate 1.x (`"model_type": "ColBERT"`): modules.json [Transformer, `pylate.models.Dense.Dense`], the knobs as
  flat keys of `config_sentence_transformers.json` — `query_prefix` / `document_prefix` (the markers, put before
  any saved prompt), `query_length` (the expansion length when `do_query_expansion`, default true),
  `document_length`, `attend_to_expansion_tokens`, `skiplist_words` (default: the punctuation) — and the
  MultiVectorMask and token-level Normalize implied, as sentence-transformers 6 loads it.

What a text becomes (sentence-transformers' `Transformer.preprocess` and `MultiVectorMask`): the side's marker
prompt before the text, the tokenizer's special tokens around it, at most the side's token limit (queries:
`query_expansion.length` for "fixed", else `query_length`; documents: `document_length`; else the model's);
a query shorter than the expansion length is filled with the expansion token (the tokenizer's mask token unless
named) up to it, attended by the encoder only with `attend`, scored either way. The scored rows are every real
token, less the skip-list's tokens on the `skiplist_tasks` side (documents by default: a "document" is any text
encoded without "query"), and on the document side only `keep_only_token_ids` when that is set.

Anything else — another module, a Dense on sentence embeddings, a Normalize before a Dense, an unknown expansion
key, a length ≤ 0 or above 10^6, Stanford-NLP's HF_ColBERT checkpoints (no modules.json) — is a `ValueError`
naming the file and what it holds.

Example (a tiny folder of the test fixtures):
>>> spec = read_multi_vector_folder("tests/fixtures/multi_vector_folders/bert_colbert")
>>> spec.query_expansion, spec.document_length, spec.prompts["query"], spec.similarity_fn_name
(QueryExpansion(strategy='fixed', attend=False, token=None, length=16), 40, '[Q] ', 'maxsim')
"""

import dataclasses
import os
import string

from keras_sentemb.pretrained.sentence_transformers_folder import (
    dense_module,
    module_kind,
    sentence_bert_config,
    token_limit,
)
from keras_sentemb.utils.checked_files import read_json, read_json_if_present, regular_file_present

EXPANSION_STRATEGIES = ("fixed", "min")
EXPANSION_KEYS = ("strategy", "attend", "token", "length")
SIMILARITIES = ("maxsim", "meanmaxsim")
MAX_TOKENS = 10**6  # a length above this is a broken config, not a model
# modules.json types of other libraries that sentence-transformers 6 reads as its own modules.
MODULE_ALIASES = {"pylate.models.Dense.Dense": "sentence_transformers.base.modules.dense.Dense"}
LEGACY_MODEL_TYPE = "ColBERT"
LEGACY_KEYS = (
    "query_prefix",
    "document_prefix",
    "query_length",
    "document_length",
    "do_query_expansion",
    "attend_to_expansion_tokens",
    "skiplist_words",
)


@dataclasses.dataclass(frozen=True)
class QueryExpansion:
    """sentence-transformers' `query_expansion`: queries filled with `token` (None: the mask token) to `length`
    tokens; "fixed" also cuts them there, "min" leaves longer queries as they are; `attend`: whether the encoder
    attends to the filled positions (they are scored either way)."""

    strategy: str
    attend: bool
    token: str | None
    length: int


@dataclasses.dataclass(frozen=True)
class MultiVectorFolder:
    """A MultiVectorEncoder folder's model (see the module docstring)."""

    root: str
    transformer_folder: str
    do_lower_case: bool
    max_length: int | None
    query_length: int | None
    document_length: int | None
    query_expansion: QueryExpansion | None
    dense: tuple
    normalize: bool
    scoring_mask: bool
    skiplist_words: tuple
    skiplist_tasks: tuple
    keep_only_token_ids: tuple | None
    prompts: dict
    default_prompt_name: str | None
    similarity_fn_name: str
    marker_tokens: tuple  # PyLate's prefixes ("[unused0] ", "[Q] "): each, or its first word, a vocabulary token


def _length(config, key, source):
    value = config.get(key)
    if value is None:
        return None
    if type(value) is not int or not 0 < value <= MAX_TOKENS:
        raise ValueError(f"{source}: {key} must be an integer in [1, {MAX_TOKENS}], got {value!r}")
    return value


def query_expansion(value, source):
    """A `QueryExpansion` of a `query_expansion` config value (None: no expansion), checked as
    sentence-transformers checks it."""
    if value is None:
        return None
    if not isinstance(value, dict):
        raise ValueError(f"{source}: query_expansion must be an object or null, got {type(value).__name__}")
    unknown = sorted(set(value) - set(EXPANSION_KEYS))
    if unknown:
        raise ValueError(f"{source}: query_expansion has unknown keys {unknown}; known: {', '.join(EXPANSION_KEYS)}")
    if value.get("strategy") not in EXPANSION_STRATEGIES:
        raise ValueError(f"{source}: query_expansion strategy {value.get('strategy')!r} is not 'fixed' or 'min'")
    attend = value.get("attend", False)
    if not isinstance(attend, bool):
        raise ValueError(f"{source}: query_expansion attend must be true or false, got {attend!r}")
    token = value.get("token")
    if token is not None and (not isinstance(token, str) or not token):
        raise ValueError(f"{source}: query_expansion token must be a token (a non-empty string) or null")
    length = _length(value, "length", f"{source}: query_expansion")
    if length is None:
        raise ValueError(f"{source}: query_expansion needs 'length', the query's tokens after expansion (ColBERT: 32)")
    return QueryExpansion(value["strategy"], attend, token, length)


def _string_list(value, what, source):
    if value is None:
        return None
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
        raise ValueError(f"{source}: {what} must be a list of strings")
    return tuple(value)


def _mask_settings(folder):
    source = os.path.join(folder, "config.json")
    config = read_json_if_present(folder, "config.json")
    words = _string_list(config.get("skiplist_words"), "skiplist_words", source) or ()
    tasks = _string_list(config.get("skiplist_tasks"), "skiplist_tasks", source)
    keep = config.get("keep_only_token_ids")
    if keep is not None and (
        not isinstance(keep, list) or not all(type(i) is int and 0 <= i < 2**31 for i in keep) or not keep
    ):
        raise ValueError(f"{source}: keep_only_token_ids must be null or a non-empty list of token ids ≥ 0")
    return words, ("document",) if tasks is None else tasks, None if keep is None else tuple(keep)


def is_multi_vector_folder(folder):
    """Whether `folder` is a MultiVectorEncoder (or PyLate ColBERT) folder: config_sentence_transformers.json's
    model_type says so, or modules.json holds a MultiVectorMask or a PyLate Dense (unreadable files are left to
    the loader to name)."""
    root = os.fspath(folder)
    try:
        model_type = read_json_if_present(root, "config_sentence_transformers.json").get("model_type")
        if model_type in ("MultiVectorEncoder", LEGACY_MODEL_TYPE):
            return True
        path = os.path.join(root, "modules.json")
        entries = read_json(path) if regular_file_present(path) else []
    except ValueError:
        return False
    types = (
        {str(entry.get("type", "")) for entry in entries if isinstance(entry, dict)}
        if isinstance(entries, list)
        else set()
    )
    return any(t.endswith("MultiVectorMask") or t in MODULE_ALIASES for t in types)


def read_multi_vector_folder(folder):
    """A `MultiVectorFolder` for `folder` (see the module docstring)."""
    root = os.fspath(folder)
    modules_path = os.path.join(root, "modules.json")
    if not regular_file_present(modules_path):
        config = read_json_if_present(root, "config.json")
        if "HF_ColBERT" in (config.get("architectures") or []):
            raise ValueError(
                f"{root}: a Stanford-NLP ColBERT checkpoint (HF_ColBERT, no modules.json) is not supported; load it "
                "once with sentence-transformers' MultiVectorEncoder and save it, or use a PyLate / ST 6 folder"
            )
        raise FileNotFoundError(f"{root}: no modules.json (not a sentence-transformers MultiVectorEncoder folder)")
    entries = read_json(modules_path)
    if not isinstance(entries, list) or not entries:
        raise ValueError(f"{modules_path}: expected a non-empty list of modules")
    settings_path = os.path.join(root, "config_sentence_transformers.json")
    settings = read_json_if_present(root, "config_sentence_transformers.json")
    legacy = settings.get("model_type") == LEGACY_MODEL_TYPE or any(
        isinstance(entry, dict) and entry.get("type") in MODULE_ALIASES for entry in entries
    )
    kinds = []
    for entry in entries:
        if isinstance(entry, dict) and entry.get("type") in MODULE_ALIASES:
            entry = {**entry, "type": MODULE_ALIASES[entry["type"]]}
        kinds.append((module_kind(entry, modules_path), os.path.join(root, entry.get("path") or "")))
    names = [kind for kind, _ in kinds]
    if names[0] != "Transformer":
        raise ValueError(f"{modules_path}: modules {names} do not start with a Transformer")
    transformer_folder = kinds[0][1]
    sbert_config, sbert_config_name = sentence_bert_config(transformer_folder)
    sbert_source = os.path.join(transformer_folder, sbert_config_name)
    task = sbert_config.get("transformer_task", "feature-extraction")
    if task != "feature-extraction":
        raise ValueError(f"{sbert_source}: transformer_task {task!r}; a multi-vector encoder reads token states")
    dense, normalize, masks = [], False, []
    for kind, module_folder in kinds[1:]:
        where = f"{modules_path}: module {kind} ({module_folder})"
        if kind == "Dense":
            if normalize:
                raise ValueError(f"{where} comes after Normalize; supported: Transformer → Dense* → Normalize")
            config = read_json(os.path.join(module_folder, "config.json"))
            dense.append(
                dense_module(module_folder, config, os.path.join(module_folder, "config.json"), "token_embeddings")
            )
        elif kind == "MultiVectorMask":
            masks.append(_mask_settings(module_folder))
        elif kind == "Normalize":
            config = read_json_if_present(module_folder, "config.json")
            if config.get("module_input_name", "token_embeddings") != "token_embeddings":
                raise ValueError(f"{where}: normalises {config.get('module_input_name')!r}, not the token embeddings")
            normalize = True
        elif kind != "Dropout":
            raise ValueError(
                f"{where} is not supported; supported: Transformer, Dense (token embeddings), MultiVectorMask, "
                "Normalize, Dropout"
            )
    if len(masks) > 1:
        raise ValueError(f"{modules_path}: {len(masks)} MultiVectorMask modules; a model has at most one")
    prompts = settings.get("prompts") or {}
    if not isinstance(prompts, dict) or not all(isinstance(v, str) for v in prompts.values()):
        raise ValueError(f"{settings_path}: prompts must be an object of strings")
    prompts = dict(prompts)
    markers = []
    if legacy:
        for key, side in (("query_prefix", "query"), ("document_prefix", "document")):
            prefix = settings.get(key)
            if prefix is not None and not isinstance(prefix, str):
                raise ValueError(f"{settings_path}: {key} must be a string, got {prefix!r}")
            if prefix:
                prompts[side] = prefix + (prompts.get(side) or "").removeprefix(prefix)
                markers.append(prefix)
        words = settings.get("skiplist_words")
        words = _string_list(words, "skiplist_words", settings_path)
        if words is None:
            words = tuple(string.punctuation) if markers else ()
        masks = [(words, ("document",), None)]
        normalize = True
        knobs, knobs_source = settings, settings_path
        if "query_expansion" in settings:
            expansion = query_expansion(settings["query_expansion"], settings_path)
            query_length = _length(settings, "query_length", settings_path)
        elif settings.get("do_query_expansion") is False:
            expansion, query_length = None, _length(settings, "query_length", settings_path)
        else:
            attend = settings.get("attend_to_expansion_tokens", False)
            if not isinstance(attend, bool):
                raise ValueError(f"{settings_path}: attend_to_expansion_tokens must be true or false, got {attend!r}")
            length = _length(settings, "query_length", settings_path) or 32
            expansion, query_length = QueryExpansion("fixed", attend, None, length), None
    else:
        knobs, knobs_source = sbert_config, sbert_source
        expansion = query_expansion(sbert_config.get("query_expansion"), sbert_source)
        query_length = _length(sbert_config, "query_length", sbert_source)
    document_length = _length(knobs, "document_length", knobs_source)
    if expansion is not None and query_length is not None and query_length < expansion.length:
        raise ValueError(
            f"{knobs_source}: query_length {query_length} is below query_expansion's length {expansion.length}"
        )
    default_prompt_name = settings.get("default_prompt_name")
    if default_prompt_name is not None and default_prompt_name not in prompts:
        raise ValueError(f"{settings_path}: default_prompt_name {default_prompt_name!r} is not among the prompts")
    similarity = settings.get("similarity_fn_name")
    similarity = similarity if similarity in SIMILARITIES else "maxsim"  # PyLate's "MaxSim", or none saved
    words, tasks, keep = masks[0] if masks else ((), ("document",), None)
    return MultiVectorFolder(
        root=root,
        transformer_folder=transformer_folder,
        do_lower_case=bool(sbert_config.get("do_lower_case", False)),
        max_length=token_limit(transformer_folder, sbert_config, sbert_config_name),
        query_length=query_length,
        document_length=document_length,
        query_expansion=expansion,
        dense=tuple(dense),
        normalize=normalize,
        scoring_mask=bool(masks),
        skiplist_words=tuple(words),
        skiplist_tasks=tuple(tasks),
        keep_only_token_ids=keep,
        prompts={name: text for name, text in prompts.items() if text},
        default_prompt_name=default_prompt_name if prompts.get(default_prompt_name) else None,
        similarity_fn_name=similarity,
        marker_tokens=tuple(markers),
    )
