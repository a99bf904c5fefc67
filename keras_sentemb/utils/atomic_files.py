"""Atomic file writes: write to a temporary file beside the target, then rename."""

import contextlib
import os
import tempfile

import numpy as np


@contextlib.contextmanager
def atomic_open(path, mode="wb"):
    """Opens a temporary file that replaces `path` only when the block succeeds."""
    path = os.fspath(path)
    folder = os.path.dirname(os.path.abspath(path))
    os.makedirs(folder, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{os.path.basename(path)}.", dir=folder)
    try:
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
