"""Tarballs of a model folder: packed reproducibly, unpacked refusing anything that could
escape the target folder.

`pack_folder` writes a gzip tarball of regular files (sorted names, mtime 0, no owner), so
the same folder always gives the same bytes and the same sha256. `unpack_archive` accepts
only regular files and folders whose names stay inside the target: an absolute name, a
`..` component, a symlink, a hard link or a device is a `ValueError` naming the entry,
raised before anything is written.
"""

import gzip
import io
import os
import posixpath
import tarfile
import zlib


def pack_folder(folder, prefix, with_directories=False):
    """Bytes of a .tar.gz holding every regular file under `folder` as `prefix/relpath`
    (as `relpath` when `prefix` is empty). `with_directories` adds an entry for each
    subfolder before its files: tensorflow_hub's unpacker creates no missing parents (its
    modules are SavedModels at the archive root: `pack_folder(saved_model, "", True)`)."""
    folder = os.fspath(folder)
    buffer = io.BytesIO()
    with gzip.GzipFile(fileobj=buffer, mode="wb", mtime=0) as zipped:
        with tarfile.open(fileobj=zipped, mode="w", format=tarfile.PAX_FORMAT) as tar:
            for root, dirs, files in os.walk(folder):
                dirs.sort()
                for name in dirs if with_directories else ():
                    relative = os.path.relpath(os.path.join(root, name), folder).replace(os.sep, "/")
                    info = tarfile.TarInfo(f"{prefix}/{relative}" if prefix else relative)
                    info.type, info.mode = tarfile.DIRTYPE, 0o755
                    tar.addfile(info)
                for name in sorted(files):
                    path = os.path.join(root, name)
                    if os.path.islink(path) or not os.path.isfile(path):
                        raise ValueError(f"{path}: only regular files can be packed")
                    relative = os.path.relpath(path, folder).replace(os.sep, "/")
                    info = tarfile.TarInfo(f"{prefix}/{relative}" if prefix else relative)
                    info.size = os.path.getsize(path)
                    info.mode = 0o644
                    with open(path, "rb") as f:
                        tar.addfile(info, f)
    return buffer.getvalue()


def _checked_name(member, prefix):
    name = member.name
    parts = name.split("/")
    if name.startswith("/") or posixpath.isabs(name) or ".." in parts or "\\" in name:
        raise ValueError(f"archive entry {name!r} would escape the target folder")
    if not (member.isfile() or member.isdir()):
        kind = "link" if (member.issym() or member.islnk()) else "special file"
        raise ValueError(f"archive entry {name!r} is a {kind}; only regular files are accepted")
    if parts[0] != prefix:
        raise ValueError(f"archive entry {name!r} is outside the model folder {prefix!r}")
    if member.isfile() and any(part in ("", ".") for part in parts[1:]):
        raise ValueError(f"archive entry {name!r} is not a plain file name ('.' or an empty part)")
    return "/".join(parts[1:])


MAX_MEMBERS = 10_000
MAX_UNPACKED_BYTES = 4 << 30
MAX_EXPANSION = 100  # unpacked bytes per archive byte; model weights compress far less


def unpack_archive(path, prefix, target, max_members=MAX_MEMBERS, max_bytes=MAX_UNPACKED_BYTES):
    """Writes the files of the archive at `path` (all under `prefix/`) into `target`
    (an existing, empty folder). Every entry is checked before the first is written:
    names, types, at most `max_members` entries and at most min(`max_bytes`,
    `MAX_EXPANSION` × the archive's size) bytes in all, so a decompression bomb is refused
    before anything is written."""
    cap = min(max_bytes, MAX_EXPANSION * os.path.getsize(path))
    try:
        _unpack(path, prefix, target, max_members, cap, max_bytes)
    except (tarfile.TarError, EOFError, zlib.error, gzip.BadGzipFile) as error:
        raise ValueError(f"{path}: damaged or truncated .tar.gz ({error or type(error).__name__})") from None


def _unpack(path, prefix, target, max_members, cap, max_bytes):
    with tarfile.open(path, mode="r:gz") as tar:
        members = []
        for member in tar:  # headers only; stop early rather than list a huge archive
            members.append(member)
            if len(members) > max_members:
                raise ValueError(f"{path}: more than {max_members} entries; refusing to unpack")
        names = [_checked_name(member, prefix) for member in members]
        if not any(member.isfile() for member in members):
            raise ValueError(f"{path}: the archive holds no file")
        total = sum(member.size for member in members if member.isfile())
        if total > cap:
            raise ValueError(
                f"{path}: unpacks to {total} bytes, over the cap of {cap} "
                f"(min of {max_bytes} and {MAX_EXPANSION}× the archive's size); refusing to unpack"
            )
        for member, relative in zip(members, names):
            if not relative or member.isdir():
                continue
            destination = os.path.join(target, *relative.split("/"))
            if os.path.commonpath([os.path.abspath(destination), os.path.abspath(target)]) != os.path.abspath(target):
                raise ValueError(f"archive entry {member.name!r} would escape the target folder")
            os.makedirs(os.path.dirname(destination), exist_ok=True)
            source = tar.extractfile(member)
            with open(destination, "wb") as f:
                while chunk := source.read(1 << 20):
                    f.write(chunk)
