"""A TF Serving bundle: several models in TF Serving's layout, with their config and warmup.

    <folder>/models.config                  model_config_list, one entry a model
    <folder>/<name>/<version>/              each model's SavedModel (export_saved_model)
        assets.extra/tf_serving_warmup_requests   a PredictRequest per signature

Serve it with the TF Serving image (not run here: our machines have no container engine):

    docker run --rm -p 8500:8500 -p 8501:8501 -v "$PWD/<folder>:/models" tensorflow/serving \\
        --model_config_file=/models/models.config

The config's base paths are `<base_path>/<name>` (default `/models`, where the command above
mounts the folder). Needs the optional extra `serving` (tensorflow-serving-api).

(Not run as a doctest: it exports models, which takes seconds; tests/export/test_serving_bundle.py
runs it.)
    export_serving_bundle({"minilm": encoder, "minilm-hash": hashed}, "serving")
    # -> 'serving/models.config'
"""

from __future__ import annotations

import os
import re

from google.protobuf import text_format

from keras_sentemb.export.saved_model_export import export_saved_model
from keras_sentemb.utils.atomic_files import atomic_open
from keras_sentemb.utils.output_targets import check_output_file

CONFIG_FILE = "models.config"
SERVED_NAME = re.compile(r"[a-z0-9][a-z0-9._-]{0,99}")


def models_config_text(names, base_path="/models"):
    """The `models.config` text (ModelServerConfig in protobuf text format) for `names`."""
    try:  # optional extra: tensorflow-serving-api (pip install "./keras-sentemb[serving]")
        from tensorflow_serving.config import model_server_config_pb2
    except ImportError as error:
        raise ImportError(
            'a TF Serving bundle needs tensorflow-serving-api: pip install "./keras-sentemb[serving]"'
        ) from error
    config = model_server_config_pb2.ModelServerConfig()
    for name in names:
        entry = config.model_config_list.config.add()
        entry.name, entry.base_path, entry.model_platform = name, f"{base_path.rstrip('/')}/{name}", "tensorflow"
    return text_format.MessageToString(config)


def export_serving_bundle(models, folder, version=1, overwrite=False, base_path="/models", code_tables=None):
    """Exports every model of `models` (`{served name: model}`) to `folder/<name>/<version>/`
    with warmup requests for each signature, then writes `folder/models.config`; returns its path.

    `code_tables` maps a hashed model's name to `(codes, ids)` for its `search` signature.
    Names are what clients ask TF Serving for: lower-case letters, digits, `.`, `_`, `-`.
    """
    if not models:
        raise ValueError("a serving bundle needs at least one model")
    for name in models:
        if not isinstance(name, str) or not SERVED_NAME.fullmatch(name):
            raise ValueError(f"invalid served model name {name!r}: use [a-z0-9._-], starting with a letter or digit")
    code_tables = code_tables or {}
    unknown = sorted(set(code_tables) - set(models))
    if unknown:
        raise ValueError(f"code tables for models not in the bundle: {unknown}")
    text = models_config_text(sorted(models), base_path)  # fails early when the extra is missing
    folder = os.fspath(folder)
    path = os.path.join(folder, CONFIG_FILE)
    if os.path.isdir(folder):  # an earlier bundle's models.config is replaced, never a file of the user's
        check_output_file(path, CONFIG_FILE, overwrite=True, is_ours=_is_models_config)
    for name, model in sorted(models.items()):
        table, ids = code_tables.get(name, (None, None))
        export_saved_model(
            model,
            os.path.join(folder, name),
            version=version,
            overwrite=overwrite,
            code_table=table,
            code_ids=ids,
            warmup_name=name,
        )
    with atomic_open(path, "wb") as f:
        f.write((CONFIG_HEADER + text).encode("utf-8"))
    return path


CONFIG_HEADER = "# TF Serving model config written by keras-sentemb (export --serving)\n"


def _is_models_config(path):
    """Whether `path` is a models.config a bundle export wrote (its header; or, before the header, TF
    Serving's text format starting with `model_config_list`)."""
    with open(path, "rb") as f:
        start = f.read(len(CONFIG_HEADER.encode("utf-8")))
    return start == CONFIG_HEADER.encode("utf-8") or start.startswith(b"model_config_list")
