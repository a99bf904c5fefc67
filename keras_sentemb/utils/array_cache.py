"""A verified on-disk cache of computed arrays (embeddings, teacher scores), keyed by content.

An entry is `<name>-<key[:16]>.npy` plus a `.json` sidecar holding the full key and the
sha256 of the `.npy` bytes; a row-quantised entry (`save_cached_rows`: a big table at 8, 6 or 4 bits
a value, `keras_sentemb.utils.row_quantization`) is a compressed `.npz` of values and scales instead, and
loads as the float32 matrix it encodes. `cached_array` recomputes when the entry is missing, when its
key differs (other data or other weights), or when the file does not match its recorded
sha256 (a truncated or corrupted write); both files are written atomically.

Keys come from `fingerprint(...)` of everything the result depends on: the texts
(`fingerprint_texts`) and the model's weights (`fingerprint_weights`).

Example:
(Not run as a doctest: it loads pretrained weights, which takes seconds; the tests run the same calls.)
    key = fingerprint(fingerprint_texts(sentences), fingerprint_weights(encoder))
    vectors = cached_array("cache", "minilm", key, lambda: encoder.encode(sentences))
"""

import hashlib
import io
import json
import os

import numpy as np

from keras_sentemb.utils.atomic_files import atomic_open
from keras_sentemb.utils.row_quantization import ROW_ENCODINGS, dequantize_rows, quantize_rows


def fingerprint(*parts):
    """sha256 hex of the given strings, in order."""
    digest = hashlib.sha256()
    for part in parts:
        digest.update(str(part).encode("utf-8"))
        digest.update(b"\0")
    return digest.hexdigest()


def fingerprint_texts(texts):
    """sha256 hex of a sequence of texts (order matters)."""
    digest = hashlib.sha256()
    for text in texts:
        data = text.encode("utf-8") if isinstance(text, str) else bytes(text)
        digest.update(len(data).to_bytes(8, "little"))
        digest.update(data)
    return digest.hexdigest()


def fingerprint_weights(model):
    """sha256 hex of every weight of a Keras model or layer (paths, shapes and values)."""
    digest = hashlib.sha256()
    for variable in model.weights:
        value = np.ascontiguousarray(variable.numpy())
        digest.update(f"{variable.path}:{value.dtype}:{value.shape}".encode())
        digest.update(value.tobytes())
    return digest.hexdigest()


def cache_folders(cache_dir):
    """`cache_dir` as a list of folders: one folder, or a sequence whose first folder receives
    new entries while every folder is searched, in order (e.g. the user's cache, then a
    read-only folder of entries shipped with the zoo)."""
    return [os.fspath(cache_dir)] if isinstance(cache_dir, (str, os.PathLike)) else [os.fspath(d) for d in cache_dir]


def load_cached_array(cache_dir, name, key):
    """The cached array for (name, key) from the first of `cache_dir`'s folders that holds a
    valid entry, or None when every one is absent, stale or corrupted."""
    for folder in cache_folders(cache_dir):
        array = _load_entry(os.path.join(folder, f"{name}-{key[:16]}"), key)
        if array is not None:
            return array
    return None


def _load_entry(stem, key):
    try:
        with open(stem + ".json", encoding="utf-8") as f:
            meta = json.load(f)
    except (OSError, ValueError):
        return None
    if meta.get("key") != key:
        return None
    encoding = meta.get("encoding")
    try:
        with open(stem + (".npz" if encoding else ".npy"), "rb") as f:
            data = f.read()  # read once: hashed, then parsed from memory
    except OSError:
        return None
    if hashlib.sha256(data).hexdigest() != meta.get("sha256"):
        return None
    if encoding is None:
        return np.load(io.BytesIO(data), allow_pickle=False)
    if encoding not in ROW_ENCODINGS:
        return None  # written by a newer version: recomputed
    with np.load(io.BytesIO(data), allow_pickle=False) as arrays:
        return dequantize_rows(arrays["values"], arrays["scales"], encoding, columns=meta["shape"][1])


def _write_entry(stem, extension, data, meta):
    with atomic_open(stem + extension, "wb") as f:
        f.write(data)
    with atomic_open(stem + ".json", "w") as f:
        json.dump({**meta, "sha256": hashlib.sha256(data).hexdigest()}, f, indent=1)


def cached_array(cache_dir, name, key, compute):
    """`compute()` once per key: later calls with the same key load the verified result.

    `cache_dir`: a folder, or a sequence of folders (see `cache_folders`): searched in order,
    new entries written to the first."""
    array = load_cached_array(cache_dir, name, key)
    if array is not None:
        return array
    array = np.asarray(compute())
    save_cached_array(cache_folders(cache_dir)[0], name, key, array)
    return array


def save_cached_array(folder, name, key, array):
    """Writes `array` as the entry (name, key) of `folder` (atomically); returns the `.npy` path."""
    stem = os.path.join(os.fspath(folder), f"{name}-{key[:16]}")
    buffer = io.BytesIO()
    np.save(buffer, array, allow_pickle=False)
    _write_entry(stem, ".npy", buffer.getvalue(), {"key": key, "shape": list(array.shape), "dtype": str(array.dtype)})
    return stem + ".npy"


def save_cached_rows(folder, name, key, matrix, encoding):
    """Writes the float matrix [n, d] as the entry (name, key) of `folder`, quantised per row
    (`encoding` "int8-rows", "int6-rows" or "int4-rows"); `load_cached_array` returns the float32 matrix it
    encodes. Returns the `.npz` path."""
    values, scales = quantize_rows(matrix, encoding)
    buffer = io.BytesIO()
    np.savez_compressed(buffer, values=values, scales=scales)  # deflate: 4 % off int6 codes, ~50 ms to read
    stem = os.path.join(os.fspath(folder), f"{name}-{key[:16]}")
    meta = {"key": key, "shape": list(np.shape(matrix)), "dtype": "float32", "encoding": encoding}
    _write_entry(stem, ".npz", buffer.getvalue(), meta)
    return stem + ".npz"
