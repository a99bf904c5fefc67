"""One rule for every folder or file the project writes over: it replaces only what it wrote.

A command run with `--overwrite` (a function called with `overwrite=True`) replaces its target only
when the target is something keras-sentemb wrote, of the same kind:

- a folder carrying the marker file `.keras-sentemb` that names its kind ("index", "saved-model",
  "openvino", "bulk-output", …), written into every folder the project publishes
  (`replaced_folder`); a folder without it, or with another kind's, is refused;
- a file that the kind's own check recognises as one of ours (`check_output_file`'s `is_ours`: an
  `.npy` array for `encode`, a `.tflite` file with our metadata for LiteRT, …).

Whatever the kind and whatever `overwrite` says, these are never replaced, and the error names the
path and what it holds:

- `/`, the home folder, the current directory, and any folder that holds one of them;
- an input of the same command, the folder it lies in, and any folder above it;
- a symbolic link (replacing it would swap the link, not what it points to);
- a file where a folder is written, or a folder where a file is.

The checks run before any long work (call `check_output_folder` / `check_output_file` first), and
again at the commit (`replaced_folder`). Temporary files are removed on every exit path
(`atomic_files`).

>>> import os, tempfile
>>> home = tempfile.mkdtemp()
>>> with open(os.path.join(home, "notes.md"), "w") as f:
...     _ = f.write("mine")
>>> check_output_folder(home, "index", overwrite=True)
Traceback (most recent call last):
ValueError: .../...: holds 1 entry (notes.md) but no keras-sentemb marker: only a folder keras-sentemb wrote is replaced; remove it yourself or choose a new path
>>> with replaced_folder(os.path.join(home, "corpus_index"), "index") as staging:
...     _ = open(os.path.join(staging, "meta.json"), "w").write("{}")
>>> folder_kind(os.path.join(home, "corpus_index"))
'index'
"""

import contextlib
import json
import os
import stat
import tempfile

from keras_sentemb.utils.atomic_files import atomic_directory

MARKER_FILE = ".keras-sentemb"
_MARKER_BYTES = 4096  # {"kind": "..."}: tens of bytes


def _named(target, option):
    return f"{option} {os.fspath(target)}" if option else os.fspath(target)


def _real(path):
    return os.path.realpath(os.path.abspath(os.fspath(path)))


def _holds(folder, path):
    """Whether `path` is `folder` or lies below it (both real, absolute paths)."""
    return path == folder or path.startswith(folder.rstrip(os.sep) + os.sep)


def _contents(folder):
    """'holds 3 entries (a.txt, b.md, …)' for an error message."""
    try:
        entries = sorted(os.listdir(folder))
    except OSError as error:
        return f"cannot be listed ({error.strerror})"
    if not entries:
        return "is empty"
    shown = ", ".join(entries[:5]) + (", …" if len(entries) > 5 else "")
    return f"holds {len(entries)} entr{'y' if len(entries) == 1 else 'ies'} ({shown})"


def _protected_places(inputs):
    """(real path, what it is) of every place a write must never replace nor hold."""
    places = [(os.sep, "the root folder"), (_real(os.path.expanduser("~")), "your home folder")]
    with contextlib.suppress(OSError):
        places.append((_real(os.getcwd()), "the current directory"))
    for item in inputs:
        if isinstance(item, (str, os.PathLike)) and os.fspath(item):
            places.append((_real(item), f"the input {os.fspath(item)}"))
    return places


def check_not_protected(target, inputs=(), given=None):
    """Raises `ValueError` when writing over `target` would replace or hold a place never replaced:
    `/`, the home folder, the current directory, one of `inputs`, or a folder holding any of them."""
    _refuse_protected(_real(target), given if given is not None else os.fspath(target), inputs)


def _refuse_protected(target, given, inputs):
    """ValueError when replacing `target` (real path) would replace or hold a protected place."""
    for place, what in _protected_places(inputs):
        if _holds(target, place):
            where = "is" if place == target else "holds"
            raise ValueError(
                f"{given}: {where} {what}; keras-sentemb never replaces it (it {_contents(target)}): "
                "give a new path for the output"
            )


def folder_kind(folder):
    """The kind the marker of `folder` names, or None (no marker, or not one of ours)."""
    path = os.path.join(os.fspath(folder), MARKER_FILE)
    try:
        with open(path, "rb") as f:
            if not stat.S_ISREG(os.fstat(f.fileno()).st_mode):
                return None
            document = json.loads(f.read(_MARKER_BYTES + 1).decode("utf-8"))
    except (OSError, ValueError):
        return None
    kind = document.get("kind") if isinstance(document, dict) else None
    return kind if isinstance(kind, str) else None


def mark_folder(folder, kind):
    """Writes the marker that says `folder` is a `kind` folder keras-sentemb wrote."""
    with open(os.path.join(os.fspath(folder), MARKER_FILE), "w", encoding="utf-8") as f:
        json.dump({"kind": kind, "written_by": "keras-sentemb"}, f)


def _existing(target, given, want_folder):
    """The mode of `target` when it exists (None when not), after refusing links and the wrong type."""
    try:
        mode = os.lstat(target).st_mode
    except FileNotFoundError:
        return None
    if stat.S_ISLNK(mode):
        raise ValueError(
            f"{given}: is a symbolic link (to {os.readlink(target)}); keras-sentemb does not replace links: "
            "give the real path or a new one"
        )
    if want_folder and not stat.S_ISDIR(mode):
        raise ValueError(f"{given}: is a file, and this writes a folder there; give a new path for the output")
    if not want_folder and stat.S_ISDIR(mode):
        raise ValueError(f"{given}: is a folder ({_contents(target)}); give a file name for the output")
    return mode


def check_output_folder(target, kind, overwrite=False, inputs=(), option=None):
    """The absolute path of `target` once it is fit to hold a new `kind` folder: absent, or (with
    `overwrite`) a `kind` folder keras-sentemb wrote; see the module docstring for what is refused.
    Its nearest existing folder must take new files (`check_writable_folder`: a read-only place fails
    here, not after a long export).

    Raises `FileExistsError` when `target` exists and not `overwrite`, `ValueError` naming the path
    (after `option`, the command-line option that gave it, when given) and what it holds when it may
    not be replaced at all.
    """
    given = _named(target, option)
    absolute = os.path.abspath(os.fspath(target))
    ancestor = os.path.dirname(absolute)
    while not os.path.exists(ancestor):  # the folders the write will make: the first that exists takes them
        ancestor = os.path.dirname(ancestor)
    check_writable_folder(ancestor, given)
    if _existing(absolute, given, want_folder=True) is None:
        _refuse_protected(_real(absolute), given, inputs)  # an input path that does not exist yet
        return absolute
    _refuse_protected(_real(absolute), given, inputs)
    if not overwrite:
        raise FileExistsError(f"{given} exists; pass overwrite=True (--overwrite) to replace it")
    found = folder_kind(absolute)
    if found is None:
        raise ValueError(
            f"{given}: {_contents(absolute)} but no keras-sentemb marker: only a folder keras-sentemb wrote is "
            "replaced; remove it yourself or choose a new path"
        )
    if found != kind:
        raise ValueError(
            f"{given}: is a keras-sentemb {found} folder, not {_article(kind)} {kind} folder; it is not replaced "
            "by this one: choose another path"
        )
    return absolute


def _article(word):
    return "an" if word[:1] in "aeiou" else "a"


def check_output_file(target, kind, overwrite=False, inputs=(), is_ours=None, option=None):
    """The absolute path of `target` once a `kind` file may be written there: absent, or (with
    `overwrite`) a file `is_ours(path)` recognises as one keras-sentemb wrote (without `is_ours`,
    any file of that name is taken as ours). Refused as the module docstring says; the folder it
    goes in must exist and take a new file (`check_writable_folder`).
    """
    given = _named(target, option)
    absolute = os.path.abspath(os.fspath(target))
    exists = _existing(absolute, given, want_folder=False) is not None
    _refuse_protected(_real(absolute), given, inputs)
    check_writable_folder(os.path.dirname(absolute), given)
    if not exists:
        return absolute
    if not overwrite:
        raise FileExistsError(f"{given} exists; pass overwrite=True (--overwrite) to replace it")
    if is_ours is not None and not is_ours(absolute):
        raise ValueError(
            f"{given}: exists and is not {_article(kind)} {kind} file keras-sentemb wrote "
            f"({os.path.getsize(absolute)} bytes); it is not replaced: remove it yourself or choose a new path"
        )
    return absolute


def check_writable_folder(folder, given=None):
    """Raises when `folder` does not exist or cannot take a new file (read-only, not a folder): a
    probe file is created and removed there, so a long export fails before it starts, naming the
    target `given` (default: the folder)."""
    given = given if given is not None else os.fspath(folder)
    if not os.path.isdir(folder):
        raise FileNotFoundError(f"{given}: the folder {folder} does not exist")
    try:
        descriptor, probe = tempfile.mkstemp(prefix=".keras-sentemb-probe-", dir=folder)
    except OSError as error:
        raise PermissionError(f"{given}: cannot write in {folder} ({error.strerror})") from None
    os.close(descriptor)
    os.remove(probe)


@contextlib.contextmanager
def replaced_folder(target, kind, overwrite=False, inputs=()):
    """Yields a staging folder that is published at `target` as a marked `kind` folder when the
    block succeeds (`atomic_directory`), after `check_output_folder`; the staging is removed when it
    fails.

    (Not run as a doctest: the module docstring shows it.)
        with replaced_folder("corpus_index", "index", overwrite=True) as staging:
            write_everything_into(staging)
    """
    absolute = check_output_folder(target, kind, overwrite, inputs)
    with atomic_directory(absolute, overwrite=overwrite) as staging:
        yield staging
        mark_folder(staging, kind)
        check_output_folder(target, kind, overwrite, inputs)  # what changed while the block ran
