"""The model zoo: small, verified artifacts of trained models, loaded offline.

    from keras_sentemb import zoo
    zoo.list()                                   # names, versions, metrics, sizes
    model = zoo.load("sbert-minilm-l6-stsb")     # a Keras model with encode()
    print(zoo.card("sbert-minilm-l6-stsb"))
    zoo.export("sbert-minilm-l6-stsb", "serving/sbert", version=1)
    zoo.publish("sbert-minilm-l6-stsb", "gs://bucket/zoo")      # or a folder / file:// URL
    zoo.fetch("sbert-minilm-l6-stsb", "https://example.org/zoo")

Models are looked up in the zoo folder (`$KERAS_SENTEMB_ZOO`, else the `zoo/` folder of the
repository checkout), then in the fetch cache (`$KERAS_SENTEMB_HOME/zoo`). Nothing touches
the network unless a `store` is named.
"""

import json
import os

from keras_sentemb.zoo.model_store import cached_model_dir, fetch_model, publish_folder, zoo_home
from keras_sentemb.zoo.zoo_build import read_zoo_index

__all__ = ["build", "card", "export", "fetch", "list", "list_models", "load", "model_dir", "publish", "zoo_dir"]


def zoo_dir():
    """`$KERAS_SENTEMB_ZOO`, else the `zoo/` folder beside the package (a checkout)."""
    configured = os.environ.get("KERAS_SENTEMB_ZOO")
    if configured:
        return configured
    return os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "zoo"))


def _cached_versions(name):
    folder = os.path.join(zoo_home(), "zoo", name)
    if not os.path.isdir(folder):
        return []
    return sorted(int(v) for v in os.listdir(folder)
                  if v.isdigit() and os.path.isfile(os.path.join(folder, v, "config.json")))


def model_dir(name, store=None, version=None):
    """The local folder of `name`: the zoo folder's copy (when its version fits), else the
    fetch cache, else — only when `store` is given — fetched from it."""
    local = os.path.join(zoo_dir(), name)
    if os.path.isfile(os.path.join(local, "config.json")):
        with open(os.path.join(local, "config.json"), encoding="utf-8") as f:
            if version is None or json.load(f)["version"] == int(version):
                return local
    cached = _cached_versions(name)
    if cached and (version is None or int(version) in cached):
        return cached_model_dir(name, version or cached[-1])
    if store is not None:
        return fetch_model(name, store, version=version)
    known = sorted(set(read_zoo_index(zoo_dir())["models"]) | set(_cached_names()))
    raise ValueError(f"zoo model {name!r}" + (f" version {version}" if version else "") +
                     f" is not available offline; local models: {known}; fetch it with "
                     "zoo.fetch(name, store) or pass store=")


def _cached_names():
    folder = os.path.join(zoo_home(), "zoo")
    return [n for n in os.listdir(folder) if _cached_versions(n)] if os.path.isdir(folder) else []


def list_models():
    """One dict per available model: name, version, summary, use, class, size, metrics,
    and where it is (`zoo` folder or `cache`)."""
    models = {}
    for name, entry in read_zoo_index(zoo_dir())["models"].items():
        models[name] = {"name": name, **entry, "location": "zoo"}
    for name in _cached_names():
        if name not in models:
            with open(os.path.join(model_dir(name), "config.json"), encoding="utf-8") as f:
                config = json.load(f)
            models[name] = {"name": name, "version": config["version"], "summary": config["summary"],
                            "use": config["use"], "class": config["class"], "size_bytes": config["size_bytes"],
                            "metrics": config["metrics"], "location": "cache"}
    return [models[name] for name in sorted(models)]


def load(name, store=None, version=None):
    """The zoo model `name` as a Keras model with `encode` (and `hash` for hashed models)."""
    from keras_sentemb.zoo.model_artifact import load_artifact

    return load_artifact(model_dir(name, store=store, version=version),
                         cache_dir=os.path.join(zoo_home(), "cache"))


def card(name, store=None, version=None):
    """The text of the model card (card.md)."""
    with open(os.path.join(model_dir(name, store=store, version=version), "card.md"), encoding="utf-8") as f:
        return f.read()


def export(name, path, version=1, overwrite=False):
    """A TF Serving SavedModel of zoo model `name` at `path/<version>/` (signatures as the
    model's own `export`: `serving_default`, plus `hash` for a hashed model)."""
    return load(name).export(path, version=version, overwrite=overwrite)


def publish(name, store):
    """Packs the local copy of `name` into `store` (a folder, file://, or gs://…)."""
    folder = model_dir(name)
    with open(os.path.join(folder, "config.json"), encoding="utf-8") as f:
        version = json.load(f)["version"]
    return publish_folder(folder, name, version, store)


def fetch(name, store, version=None, progress=True):
    """Downloads `name` from `store` into the cache (verified, atomic); returns its folder."""
    return fetch_model(name, store, version=version, progress=progress)


def build(name, data_dir, repo=None, seed=0, reuse_training=False):
    """Trains and packs zoo model `name` into the zoo folder (needs a checkout and
    ../shared/data); returns its config. `reuse_training` re-packs the last training run."""
    from keras_sentemb.zoo.zoo_build import build_model

    repo = repo or os.path.dirname(zoo_dir())
    return build_model(name, zoo_dir(), data_dir, repo, seed=seed, load=load, reuse_training=reuse_training)


# `zoo.list()` as the issue names it (the builtin is not used in this module).
list = list_models  # noqa: A001
