"""Crash-safe writes: a file or a folder appears complete or not at all, and no writer
silently replaces another's.

Files: `atomic_open` writes a temporary file beside the target, fsyncs it and renames it
over the target.

Folders: `atomic_directory(target, overwrite=False)` yields a staging folder beside the
target and publishes it in one atomic step, under an advisory lock (`fcntl.flock` on the
parent folder):

- a new target: `renameat2(RENAME_NOREPLACE)`, so even a writer that ignores the lock
  cannot be overwritten;
- a replacement (`overwrite=True`): `renameat2(RENAME_EXCHANGE)` swaps the staging folder
  and the target in one step; the previous copy, now at the staging path, is deleted after.
  Readers (TF Serving polling a version folder, an index reader) see the old folder or the
  new one, never neither.
- compare-at-commit: the identity (device, inode) of the target is read when the block
  starts and again at the commit; when another writer published in between, this one
  raises `FileExistsError` and removes its staging, so the first result is never lost.

Where the platform or file system has no `renameat2` (not Linux, some network file
systems), the replacement falls back to two renames under the lock (old aside, new in);
a crash between them is repaired by the next writer of the same target, which puts the
old copy back. That next writer also deletes what crashed writers left (staging folders
of processes that are gone, old copies).

`crash_point(name)` marks the steps where the crash tests kill the process
(`KERAS_SENTEMB_CRASH_AT=<name>`); it does nothing otherwise.
"""

import contextlib
import ctypes
import errno
import fcntl
import functools
import os
import shutil
import signal
import stat
import sys
import tempfile

import numpy as np

CRASH_ENV = "KERAS_SENTEMB_CRASH_AT"
COMMIT_POINTS = ("staged", "locked", "swapped", "published")
_RENAME_NOREPLACE, _RENAME_EXCHANGE = 1, 2
_AT_FDCWD = -100


def crash_point(name):
    """Kills this process (SIGKILL, as `kill -9`) when `$KERAS_SENTEMB_CRASH_AT` is `name`.

    A test hook: the crash tests set the variable in a child process to stop a write at a
    known step, then check what a reader finds.
    """
    if os.environ.get(CRASH_ENV) == name:
        os.kill(os.getpid(), signal.SIGKILL)


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


@functools.cache
def _libc_renameat2():
    """glibc's `renameat2` through ctypes, or None where there is none (not Linux, glibc
    < 2.28, musl without it)."""
    if not sys.platform.startswith("linux"):
        return None
    try:
        function = ctypes.CDLL(None, use_errno=True).renameat2
    except (OSError, AttributeError):
        return None
    function.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p, ctypes.c_uint]
    function.restype = ctypes.c_int
    return function


def _renameat2(source, destination, flags):
    """Linux `renameat2`: True when done, False when unavailable here (the caller falls back)."""
    function = _libc_renameat2()
    if function is None:
        return False
    if function(_AT_FDCWD, os.fsencode(source), _AT_FDCWD, os.fsencode(destination), flags) == 0:
        return True
    code = ctypes.get_errno()
    if code in (errno.EINVAL, errno.ENOSYS, errno.EOPNOTSUPP):  # file system without the flag
        return False
    raise OSError(code, os.strerror(code), destination)


def _identity(path):
    """(device, inode) of `path` without following a final link, or None when absent."""
    try:
        status = os.lstat(path)
    except FileNotFoundError:
        return None
    return status.st_dev, status.st_ino


@contextlib.contextmanager
def _target_lock(parent, name):
    """An exclusive `flock` on the folder `parent` itself, held only for the short
    check-and-rename steps (released when the block ends, or by the kernel when the process
    dies). No lock file is left beside the target: TF Serving and readers see only versions."""
    fd = os.open(parent, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)


def _process_alive(pid):
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # someone else's live process
        return True
    return True


def _left_by_dead_process(entry, prefix):
    """Whether `entry` is named `<prefix><pid>-…` and process `pid` is gone."""
    pid = entry[len(prefix) :].split("-", 1)[0] if entry.startswith(prefix) else ""
    return pid.isdigit() and not _process_alive(int(pid))


def remove_stale_files(folder, prefix):
    """Deletes the files `folder/<prefix><pid>-*` whose writing process `pid` is gone
    (temporary downloads of a killed fetch, say); files of live processes stay."""
    for entry in os.listdir(folder) if os.path.isdir(folder) else ():
        if _left_by_dead_process(entry, prefix):
            with contextlib.suppress(FileNotFoundError, IsADirectoryError):
                os.remove(os.path.join(folder, entry))


def clean_leftovers(parent, name):
    """Repairs and removes what crashed writers of `parent/name` left (call under the lock):
    an old copy moved aside is put back when the target is missing, else deleted; staging
    folders of processes that are gone are deleted."""
    target = os.path.join(parent, name)
    for entry in sorted(os.listdir(parent)):
        path = os.path.join(parent, entry)
        if entry.startswith(f".{name}.old-"):
            if _identity(target) is None:
                os.rename(path, target)
            else:
                shutil.rmtree(path, ignore_errors=True)
        elif _left_by_dead_process(entry, f".{name}.tmp-"):
            shutil.rmtree(path, ignore_errors=True)


def clean_leftovers_of(target):
    """`clean_leftovers` for `target`, under its lock: for readers that find the target
    complete and return early (a cache hit) but should still tidy after crashed writers."""
    target = os.path.abspath(os.fspath(target))
    parent, name = os.path.split(target)
    if os.path.isdir(parent):
        with _target_lock(parent, name):
            clean_leftovers(parent, name)


def _fsync(path):
    """Flushes one file or folder to disk."""
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _fsync_tree(folder):
    """Flushes every file under `folder`, and the folders themselves, to disk."""
    for root, _, files in os.walk(folder):
        for name in files:
            _fsync(os.path.join(root, name))
        _fsync(root)


def _publish(staging, target, parent, name):
    """Puts `staging` at `target` (the lock is held); returns the folder holding the
    previous copy, to delete, or None."""
    if _identity(target) is None:
        if not _renameat2(staging, target, _RENAME_NOREPLACE):
            os.rename(staging, target)  # under the lock, the target checked absent
        return None
    if _renameat2(staging, target, _RENAME_EXCHANGE):
        crash_point("swapped")
        return staging  # the previous copy is there now
    old = tempfile.mkdtemp(prefix=f".{name}.old-{os.getpid()}-", dir=parent)
    os.rmdir(old)
    os.rename(target, old)
    crash_point("swapped")
    try:
        os.rename(staging, target)
    except BaseException:
        os.rename(old, target)
        raise
    return old


@contextlib.contextmanager
def atomic_directory(target, overwrite=False):
    """Yields a staging folder beside `target`, published at `target` in one atomic step
    when the block succeeds (see the module doc); when the block fails, the staging is
    deleted and `target` is left as it was.

    Raises `FileExistsError` when `target` exists and not `overwrite` (checked when the
    block starts and again at the commit), or when another writer published `target`
    while the block ran. What dead writers left beside `target` is cleaned when the block
    starts and again when it publishes.

    (Not run as a doctest: it needs a trained model or data from the surrounding text.)
        with atomic_directory("serving/model/1") as staging:
            write_everything_into(staging)
    """
    target = os.path.abspath(os.fspath(target))
    parent, name = os.path.split(target)
    os.makedirs(parent, exist_ok=True)
    with _target_lock(parent, name):
        clean_leftovers(parent, name)
        seen = _identity(target)
    if seen is not None and not overwrite:
        raise FileExistsError(f"{target} exists; pass overwrite=True to replace it.")
    if seen is not None and not stat.S_ISDIR(os.lstat(target).st_mode):
        # swapping a folder with a file or a link would leave the file behind as a "staging folder"
        raise ValueError(f"{target}: is not a folder (a file or a link); a folder is not written over it")
    staging = tempfile.mkdtemp(prefix=f".{name}.tmp-{os.getpid()}-", dir=parent)
    os.chmod(staging, 0o777 & ~_current_umask())  # mkdtemp makes 0700; give what mkdir would
    previous = None
    try:
        yield staging
        _fsync_tree(staging)
        crash_point("staged")
        with _target_lock(parent, name):
            crash_point("locked")
            if _identity(target) != seen:
                raise FileExistsError(
                    f"{target} was published by another writer while this one was writing; "
                    "this result was discarded and theirs kept"
                )
            previous = _publish(staging, target, parent, name)
            _fsync(parent)
            crash_point("published")
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    if previous is not None:
        shutil.rmtree(previous, ignore_errors=True)
    # again at the end, outside the commit: a killed job's straggling workers (Ray's outlive their
    # driver by seconds) can write into its staging folder after this run's first clean-up
    clean_leftovers_of(target)
