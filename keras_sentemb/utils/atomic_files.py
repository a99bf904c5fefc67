"""Atomic file writes: write to a temporary file beside the target, then rename."""

import contextlib
import os
import shutil
import tempfile

import numpy as np


def _current_umask():
    mask = os.umask(0)
    os.umask(mask)
    return mask


@contextlib.contextmanager
def atomic_open(path, mode="wb"):
    """Opens a temporary file that replaces `path` only when the block succeeds."""
    path = os.fspath(path)
    folder = os.path.dirname(os.path.abspath(path))
    os.makedirs(folder, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{os.path.basename(path)}.", dir=folder)
    try:
        os.chmod(tmp, 0o666 & ~_current_umask())  # mkstemp makes 0600; give what open() would
        with os.fdopen(fd, mode) as f:
            yield f
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.remove(tmp)
        raise


def save_npy_atomic(path, array):
    """`np.save` that never leaves a half-written file at `path`."""
    with atomic_open(path, "wb") as f:
        np.save(f, array)


@contextlib.contextmanager
def atomic_directory(target):
    """Yields a temporary folder beside `target`; when the block succeeds it replaces
    `target` (the old folder, if any, is moved aside first and deleted after), when it
    fails it is deleted and `target` is left as it was.

    (Skipped as a doctest: it needs a trained model or data from the surrounding text.)
    >>> with atomic_directory("serving/model/1") as staging:    # doctest: +SKIP
    ...     write_everything_into(staging)
    """
    target = os.path.abspath(os.fspath(target))
    parent, name = os.path.split(target)
    os.makedirs(parent, exist_ok=True)
    staging = tempfile.mkdtemp(prefix=f".{name}.tmp-", dir=parent)
    os.chmod(staging, 0o777 & ~_current_umask())  # mkdtemp makes 0700; give what mkdir would
    try:
        yield staging
        previous = None
        if os.path.exists(target):
            previous = tempfile.mkdtemp(prefix=f".{name}.old-", dir=parent)
            os.replace(target, os.path.join(previous, name))
        os.replace(staging, target)
        if previous is not None:
            shutil.rmtree(previous, ignore_errors=True)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
