"""The meta file every saved index writes beside its files (`SparseIndex`, `MultiVectorIndex`, `LexicalIndex`): its
format, settings and sizes, the sha256 of the documents' texts and of each file, checked before anything is read."""

import json
import os

from keras_sentemb.utils.checked_files import check_listed_files, read_json_object, regular_file_present, require_keys
from keras_sentemb.utils.file_digests import file_sha256


def write_index_meta(folder, meta_file, meta, names):
    """Writes `meta` (a dict) and `"files"`: {name: sha256} of each of `names` present in `folder` to
    `folder/meta_file`."""
    present = sorted(name for name in os.listdir(folder) if name in set(names))
    meta = {**meta, "files": {name: file_sha256(os.path.join(folder, name)) for name in present}}
    with open(os.path.join(folder, meta_file), "w", encoding="utf-8") as f:
        json.dump(meta, f, indent=1)


def read_index_meta(folder, meta_file, keys, version, what, engines=None):
    """`(meta, path)` of `folder/meta_file`: it holds `keys` and "documents_sha256", "files" (a JSON object), is of
    format `version` and, with `engines`, its "engine" is one of them. FileNotFoundError without the file ("… is not
    `what`"); ValueError naming the file otherwise."""
    path = os.path.join(os.fspath(folder), meta_file)
    if not regular_file_present(path):
        raise FileNotFoundError(f"{folder} is not {what}: no {meta_file}")
    meta = require_keys(read_json_object(path), ["format", *keys, "documents_sha256", "files"], path)
    if meta["format"] != version:
        raise ValueError(f"{path}: format {meta['format']!r}; this version reads format {version}")
    if engines is not None and meta.get("engine") not in engines:
        raise ValueError(f"{path}: engine {meta.get('engine')!r} is not one of {engines}")
    if not isinstance(meta["files"], dict):
        raise ValueError(f"{path}: files must be a JSON object")
    return meta, path


def check_index_files(folder, meta, path, documents_sha256=None, expected=None, hint=""):
    """An index of other documents than `documents_sha256` (when given) refused; the files listed exactly
    `expected` (when given); each listed file the one written (`check_listed_files`)."""
    if documents_sha256 is not None and meta["documents_sha256"] != documents_sha256:
        raise ValueError(f"{path}: indexes other documents than these (documents_sha256 differs){hint}")
    if expected is not None and sorted(meta["files"]) != sorted(expected):
        raise ValueError(f"{path}: files must list {sorted(expected)}")
    check_listed_files(folder, meta["files"], path)
