"""Readers of our own file formats that say which file is wrong and where.

The standard loaders fail with messages that name neither the file nor the place: `json.load`
gives "Expecting value: line 1 column 1", `np.load` calls a garbage `.npy` "pickled data",
`zipfile` says "File is not a zip file", Keras says "File not found" for a `.keras` file that is
there but is not a zip. These wrappers turn each into `ValueError("path:line:column: …")` (or
`path: …` where a line means nothing), and bound what they read.

>>> import os, tempfile
>>> path = os.path.join(tempfile.mkdtemp(), "meta.json")
>>> with open(path, "w") as f:
...     _ = f.write('{"dim": 384,\\n "bits": }')
>>> read_json(path)
Traceback (most recent call last):
ValueError: .../meta.json:2:10: not valid JSON (Expecting value)
"""

import json
import os
import stat
import zipfile

import numpy as np

from keras_sentemb.utils.file_digests import file_sha256

MAX_JSON_BYTES = 64 * 2**20  # index.json, model.json, meta.json: kilobytes in practice


# What a path that is not a regular file is, for the error (a symlink is followed first).
_FILE_KINDS = (
    (stat.S_ISDIR, "a folder"),
    (stat.S_ISFIFO, "a FIFO"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISSOCK, "a socket"),
)


def _not_regular(path, mode):
    kind = next((name for test, name in _FILE_KINDS if test(mode)), "not a regular file")
    link = f" (a symlink to {os.readlink(path)})" if os.path.islink(path) else ""
    return ValueError(f"{path}: {kind}{link}, not a regular file")


def open_regular_file(path):
    """`path` opened for binary reading when it is a regular file (after symlinks); else
    `FileNotFoundError("path: no such file")` or `ValueError` naming what it is (a FIFO, a device,
    a socket, a folder). A FIFO nobody writes is refused at once, never waited on: the file is
    opened non-blocking and checked with `fstat` before anything is read.

    >>> import os, tempfile
    >>> fifo = os.path.join(tempfile.mkdtemp(), "tokenizer.json")
    >>> os.mkfifo(fifo)
    >>> open_regular_file(fifo)
    Traceback (most recent call last):
    ValueError: .../tokenizer.json: a FIFO, not a regular file
    """
    path = os.fspath(path)
    try:
        descriptor = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    except FileNotFoundError:
        link = f" (a symlink to the missing {os.readlink(path)})" if os.path.islink(path) else ""
        raise FileNotFoundError(f"{path}: no such file{link}") from None
    except IsADirectoryError:
        raise _not_regular(path, os.stat(path).st_mode) from None
    mode = os.fstat(descriptor).st_mode
    if not stat.S_ISREG(mode):
        os.close(descriptor)
        raise _not_regular(path, mode)
    os.set_blocking(descriptor, True)
    return os.fdopen(descriptor, "rb")


def regular_file_present(path):
    """Whether `path` is there, as a regular file: False when nothing is at `path`, True for a
    regular file (or a symlink to one), and the `ValueError` of `open_regular_file` for anything
    else that is there (a FIFO, a device, a socket, a folder, a dangling symlink), so that a file
    that exists but cannot be read is an error rather than "absent"."""
    path = os.fspath(path)
    if not os.path.lexists(path):
        return False
    if os.path.islink(path) and not os.path.exists(path):
        raise ValueError(f"{path}: a symlink to the missing {os.readlink(path)}")
    mode = os.stat(path).st_mode
    if not stat.S_ISREG(mode):
        raise _not_regular(path, mode)
    return True


def check_listed_files(folder, listed, meta_path):
    """Each file of `listed` ({name: sha256}, read from `meta_path`) is a regular file directly in `folder` whose
    sha256 is the one listed; else a ValueError naming it: an index folder's check at load."""
    for name, digest in listed.items():
        file_path = os.path.join(folder, os.path.basename(str(name)))
        if os.path.basename(str(name)) != name or not regular_file_present(file_path):
            raise ValueError(f"{meta_path}: lists {name!r}, which is not a file of {folder}")
        if file_sha256(file_path) != digest:
            raise ValueError(
                f"{file_path}: its sha256 differs from {os.path.basename(meta_path)}'s: not the file that was written"
            )


def read_json(path, max_bytes=MAX_JSON_BYTES):
    """The parsed JSON document at `path`, read only when it is a regular file of at most
    `max_bytes`.

    Raises `FileNotFoundError("path: no such file")`, or `ValueError` naming
    `path:line:column` for bad JSON, `path` for bad UTF-8, an oversized file, nesting too deep
    for Python's parser, or a path that is not a regular file (`open_regular_file`).
    """
    path = os.fspath(path)
    with open_regular_file(path) as f:
        size = os.fstat(f.fileno()).st_size
        if size > max_bytes:
            raise ValueError(f"{path}: {size} bytes is more than the {max_bytes} a JSON file of ours may hold")
        return parse_json(f.read(max_bytes + 1), path)


def read_json_object(path, max_bytes=MAX_JSON_BYTES):
    """`read_json(path)` when the document is a JSON object (a dict); else `ValueError` naming the
    file and what it holds instead (a config that is a list or a string)."""
    document = read_json(path, max_bytes)
    if not isinstance(document, dict):
        raise ValueError(f"{os.fspath(path)}: expected a JSON object, got {type(document).__name__}")
    return document


def read_json_if_present(folder, filename, max_bytes=MAX_JSON_BYTES):
    """`read_json_object(folder/filename)`, or `{}` when there is no such file (optional config
    files); a path that is there but not a regular file is an error, never "absent"."""
    path = os.path.join(folder, filename)
    return read_json_object(path, max_bytes) if regular_file_present(path) else {}


def parse_json(data, source):
    """`json.loads(data)` with errors that name `source:line:column`."""
    try:
        text = data.decode("utf-8-sig") if isinstance(data, bytes) else data
        return json.loads(text)
    except UnicodeDecodeError as error:
        raise ValueError(f"{source}: not valid UTF-8 ({error.reason} at byte {error.start})") from None
    except json.JSONDecodeError as error:
        raise ValueError(f"{source}:{error.lineno}:{error.colno}: not valid JSON ({error.msg})") from None
    except RecursionError:
        raise ValueError(f"{source}: JSON nested too deeply") from None


def last_json_line(lines, source):
    """The last line of `lines` that starts with "{", parsed (a training run's result line, which our
    examples print last); None when no line does. `source` names the log in errors.

    >>> last_json_line(["Epoch 1/4", '{"dev": 88.1}', "done"], "train.log")
    {'dev': 88.1}
    """
    for number in range(len(lines) - 1, -1, -1):
        if lines[number].startswith("{"):
            return parse_json(lines[number], f"{source}:{number + 1}")
    return None


def require_keys(mapping, keys, source):
    """`mapping` itself when it is a dict holding every key of `keys`; else a `ValueError`
    naming `source` and the missing keys (instead of a bare `KeyError` later)."""
    if not isinstance(mapping, dict):
        raise ValueError(f"{source}: expected a JSON object, got {type(mapping).__name__}")
    missing = [key for key in keys if key not in mapping]
    if missing:
        raise ValueError(f"{source}: missing key(s) {missing}")
    return mapping


def load_npy(path, mmap_mode=None):
    """The array of a `.npy` file (never unpickled), with `path` in every error."""
    path = os.fspath(path)
    if not regular_file_present(path):
        raise FileNotFoundError(f"{path}: no such file")
    with open(path, "rb") as f:
        if f.read(6) != b"\x93NUMPY":
            raise ValueError(f"{path}: not a .npy array file (no NumPy header)")
    try:
        return np.load(path, mmap_mode=mmap_mode, allow_pickle=False)
    except (ValueError, EOFError, OSError) as error:
        raise ValueError(f"{path}: damaged .npy array file ({error})") from None


def _existing_zip(path, kind, why):
    """`path` when it names a zip archive; else FileNotFoundError / ValueError naming `kind`."""
    path = os.fspath(path)
    if not regular_file_present(path):  # a FIFO, a device, a folder: refused, never waited on
        raise FileNotFoundError(f"{path}: no such {kind} file")
    if not zipfile.is_zipfile(path):
        raise ValueError(f"{path}: not a {kind} file ({why})")
    return path


def open_npz(path):
    """`np.load` of a `.npz` archive (a context manager), with `path` in every error."""
    path = _existing_zip(path, ".npz", "not a zip archive")
    try:
        return np.load(path, allow_pickle=False)
    except (ValueError, EOFError, OSError, zipfile.BadZipFile) as error:
        raise ValueError(f"{path}: damaged .npz archive ({error})") from None


def npz_array(arrays, key, source):
    """`arrays[key]` of an open `.npz`, with `source` in the error when it is missing or damaged."""
    try:
        return arrays[key]
    except KeyError:
        raise ValueError(f"{source}: the archive holds no array {key!r}") from None
    except (ValueError, EOFError, OSError, zipfile.BadZipFile) as error:
        raise ValueError(f"{source}: array {key!r} is damaged ({error})") from None


def check_keras_file(path):
    """`path` when it is an existing `.keras` file (a zip archive); a clear error otherwise."""
    return _existing_zip(path, ".keras", "a .keras file is a zip archive; this one is not")
