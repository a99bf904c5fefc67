"""Publishing zoo models to a store and fetching them into the local cache.

A store is a folder (a path or `file://` URL), any `tf.io.gfile` location (`gs://...`),
or, for fetching only, an `http(s)://` URL. It holds

    index.json                              {"models": {name: {"latest": v, "versions": {v: {...}}}}}
    <name>/<name>-v<version>.tar.gz          the model folder, packed reproducibly
    <name>/<name>-v<version>.tar.gz.sha256   its sha256, as `sha256sum` prints it

`fetch` downloads with a progress bar into `$KERAS_SENTEMB_HOME/downloads/<name>-v<version>-
<sha256 prefix>.tar.gz.partial`, reading at most the size the index declares (an entry without one,
or above `MAX_ARCHIVE_BYTES`, is refused; one byte more is an error, an archive that ends short of
it is an error that keeps nothing, as is a stream slower than `MIN_FETCH_BYTES_PER_S` on average or
idle for `FETCH_IDLE_TIMEOUT_S`), checks the sha256, unpacks into a temporary folder (refusing unsafe
entries) and publishes it at `$KERAS_SENTEMB_HOME/zoo/<name>/<version>` with `atomic_directory`:
no failed fetch ever leaves a model in the cache.

Downloads resume: a fetch that was interrupted (connection lost, timeout, a full disk, kill -9)
leaves its partial file, says so in a note on its error (path, bytes, how to free them), and the next fetch of the same archive asks the server only for the rest
(`Range: bytes=N-`; a server that ignores it sends the whole file again, which is fine). A
partial file is bounded by the declared size, and deleted once verified or when it proves wrong
(sha256 mismatch, oversized stream, an archive that does not unpack). Concurrent fetches of the
same archive take turns on the partial file's lock; the second one finds the model cached and
removes the empty partial its lock created.

Publishing is idempotent per version: the same bytes again change nothing (the version's hub
module and its index record stay), other bytes are refused.
"""

import contextlib
import fcntl
import glob
import hashlib
import json
import os
import re
import time
import urllib.error
import urllib.parse
import urllib.request

import tensorflow as tf
from tqdm.auto import tqdm

from keras_sentemb.utils.atomic_files import atomic_directory, atomic_open, clean_leftovers_of, remove_stale_files
from keras_sentemb.utils.checked_files import parse_json, require_keys
from keras_sentemb.utils.home_folder import keras_sentemb_home
from keras_sentemb.utils.output_targets import check_not_protected
from keras_sentemb.zoo.safe_archive import pack_folder, unpack_archive

INDEX = "index.json"
FETCHED_MARKER = ".fetched.json"
FETCH_IDLE_TIMEOUT_S = 60  # no byte for this long: the fetch fails
MIN_FETCH_BYTES_PER_S = 50_000  # slower on average (after the idle allowance): the fetch fails


def zoo_home():
    """`$KERAS_SENTEMB_HOME` (default `~/.cache/keras_sentemb`): where fetched models live."""
    return keras_sentemb_home()


MODEL_NAME = re.compile(r"[a-z0-9][a-z0-9._-]{0,99}")
ARCHIVE_PATH = re.compile(r"[a-z0-9][a-z0-9._-]{0,99}/[a-z0-9][a-z0-9._-]{0,120}\.tar\.gz")


def checked_model_name(name):
    """`name` when it is a plain model name (lower-case letters, digits, `.`, `_`, `-`; no
    `..`), else `ValueError`: names come from a store's index and become cache folders."""
    if not isinstance(name, str) or not MODEL_NAME.fullmatch(name) or ".." in name:
        raise ValueError(f"invalid model name {name!r}: use lower-case letters, digits, '.', '_' and '-'")
    return name


def fetch_cache_dir(home=None):
    """The folder of fetched models, one `<name>/<version>/` folder each: `<home>/zoo`."""
    return os.path.join(home or zoo_home(), "zoo")


def cached_model_dir(name, version, home=None):
    if isinstance(version, bool) or not isinstance(version, int) or version < 1:
        raise ValueError(f"invalid model version {version!r}: a positive int")
    return os.path.join(fetch_cache_dir(home), checked_model_name(name), str(version))


def _scheme(store):
    return urllib.parse.urlparse(os.fspath(store)).scheme.lower()


def _checked_store(store):
    """`store` when its scheme is one a store can have: none (a folder), file, http(s), or a
    `scheme://` of tf.io.gfile (gs://, s3://, ram://, ...), else `ValueError`."""
    text = os.fspath(store)
    scheme = _scheme(text)
    if scheme and len(scheme) > 1 and scheme not in ("file", "http", "https") and "://" not in text:
        raise _unsupported_scheme(text)
    return store


def _unsupported_scheme(location):
    return ValueError(
        f"{location}: unsupported store scheme {_scheme(location)!r}; use a folder, file://, http(s):// or a "
        "tf.io.gfile file system (gs://, ...)"
    )


def _local_path(store):
    store = os.fspath(store)
    if _scheme(store) == "file":
        return urllib.request.url2pathname(urllib.parse.urlparse(store).path)
    return store


def _is_local(store):
    return _scheme(store) in ("", "file") or len(_scheme(store)) == 1  # "c:" on Windows


def _join(store, *parts):
    if _is_local(store):
        return os.path.join(_local_path(store), *parts)
    return "/".join([os.fspath(store).rstrip("/"), *parts])


class _HttpOnlyRedirects(urllib.request.HTTPRedirectHandler):
    """Follows redirects to http(s) only: a store cannot send a fetch to ftp:// or file://."""

    def redirect_request(self, req, fp, code, msg, headers, newurl):
        if _scheme(newurl) not in ("http", "https"):
            raise ValueError(f"{req.full_url}: redirected to {newurl!r}; only http(s) redirects are followed")
        return super().redirect_request(req, fp, code, msg, headers, newurl)


_HTTP = urllib.request.build_opener(_HttpOnlyRedirects)


def _open_binary(location, offset=0):
    """A readable binary stream of `location` from byte `offset`, and that offset (0 when an
    http server ignored the Range request and sends the whole file): urllib for http(s),
    open() for a local path or file:// URL, tf.io.gfile for every other scheme it knows."""
    if _scheme(location) in ("http", "https"):
        request = urllib.request.Request(location, headers={"Range": f"bytes={offset}-"} if offset else {})
        response = _HTTP.open(request, timeout=FETCH_IDLE_TIMEOUT_S)
        ranged = response.status == 206 and response.headers.get("Content-Range", "").startswith(f"bytes {offset}-")
        return response, offset if ranged else 0
    if _is_local(location):
        stream = open(_local_path(location), "rb")
    else:
        try:
            stream = tf.io.gfile.GFile(location, "rb")
            stream.seek(0)  # gfile opens lazily: an unknown scheme fails here
        except tf.errors.UnimplementedError as error:
            raise _unsupported_scheme(location) from error
    stream.seek(offset)
    return stream, offset


MAX_INDEX_BYTES = 16 * 2**20  # a store index lists models: kilobytes, not megabytes
MAX_ARCHIVE_BYTES = 4 * 2**30  # no zoo archive comes near: an index declaring more is refused


def _read_bytes(location, max_bytes=MAX_INDEX_BYTES):
    """The bytes at `location`, refusing more than `max_bytes` (read at most one past it)."""
    stream, _ = _open_binary(location)
    with stream as f:
        data = f.read(max_bytes + 1)
    if len(data) > max_bytes:
        raise ValueError(f"{location}: larger than {max_bytes} bytes; not a store index")
    return data


def _write_bytes(location, data):
    if _scheme(location) in ("http", "https"):
        raise ValueError(f"{location}: an http(s) store is fetch-only; publish to a folder or gs://")
    if _is_local(location):
        with atomic_open(_local_path(location), "wb") as f:
            f.write(data)
        return

    folder = location.rsplit("/", 1)[0]
    tf.io.gfile.makedirs(folder)
    temporary = f"{location}.tmp-{os.getpid()}"
    with tf.io.gfile.GFile(temporary, "wb") as f:
        f.write(data)
    tf.io.gfile.rename(temporary, location, overwrite=True)


def read_store_index(store):
    """The store's index.json (an empty index when a writable store has none yet)."""
    location = _join(_checked_store(store), INDEX)
    try:
        data = _read_bytes(location)
    except FileNotFoundError:
        return {"models": {}}
    except Exception as error:  # gfile raises NotFoundError, urllib HTTPError 404
        if "404" in str(error) or type(error).__name__ == "NotFoundError":
            return {"models": {}}
        raise
    index = parse_json(data, location)
    if not isinstance(index, dict) or not isinstance(index.get("models"), dict):
        raise ValueError(f'{location}: expected {{"models": {{...}}}}')
    return index


def _check_local_store(path, model_folder):
    """A local store is a new or empty folder, or one holding a store index.json; never `/`, the home
    folder, the current directory, the model's own folder or one holding it (`utils.output_targets`)."""
    check_not_protected(path, inputs=[model_folder], given=f"store {path}")
    if not os.path.lexists(path):
        return
    if not os.path.isdir(path) or os.path.islink(path):
        raise ValueError(f"store {path}: is not a folder (a file or a link); give a folder for the store")
    entries = os.listdir(path)
    if entries and INDEX not in entries:
        shown = ", ".join(sorted(entries)[:5]) + (", …" if len(entries) > 5 else "")
        raise ValueError(
            f"store {path}: holds {len(entries)} entr{'y' if len(entries) == 1 else 'ies'} ({shown}) but no {INDEX}: "
            "a store is a new or empty "
            "folder, or one keras-sentemb published into; choose another"
        )


def _write_store_index(store, index):
    _write_bytes(_join(store, INDEX), (json.dumps(index, indent=1, sort_keys=True) + "\n").encode())


def card_licences(card_text):
    """The bullet lines of a model card's `## Licences` section (what the store index lists)."""
    licences, inside = [], False
    for line in card_text.splitlines():
        if line.startswith("## "):
            inside = line.strip() == "## Licences"
        elif inside and line.startswith("- "):
            licences.append(line[2:].strip())
    return licences


def publish_folder(folder, name, version, store):
    """Packs the model `folder` as `name` version `version` into `store` and records it in
    the store's index; returns the index entry (archive path, sha256, bytes; with a card.md in
    the folder, also the card, stored beside the archive, and the card's licences).

    Publishing an existing version with different bytes is refused (versions are
    immutable); the same bytes again is a no-op."""
    checked_model_name(name)
    if not isinstance(version, int) or version < 1:
        raise ValueError(f"version must be a positive int, got {version!r}")
    if _scheme(store) in ("http", "https"):
        raise ValueError(f"{store}: an http(s) store is fetch-only; publish to a folder or gs://")
    if _is_local(store):
        _check_local_store(_local_path(store), folder)
    archive = pack_folder(folder, name)
    digest = hashlib.sha256(archive).hexdigest()
    relative = f"{name}/{name}-v{version}.tar.gz"
    index = read_store_index(store)
    model = index["models"].setdefault(name, {"latest": version, "versions": {}})
    existing = model["versions"].get(str(version))
    if existing and existing["sha256"] != digest:
        raise FileExistsError(
            f"{name} v{version} is already in {store} with other contents "
            f"(sha256 {existing['sha256'][:12]}…); publish a new version"
        )
    entry = {"archive": relative, "sha256": digest, "bytes": len(archive)}
    if existing and "hub" in existing:  # the same bytes again: its hub module still stands for them
        entry["hub"] = existing["hub"]
    card_path = os.path.join(folder, "card.md")
    if os.path.isfile(card_path):  # the card beside the archive, readable without unpacking
        with open(card_path, "rb") as f:
            card = f.read()
        entry["card"] = f"{name}/{name}-v{version}.md"
        entry["licences"] = card_licences(card.decode("utf-8"))
        _write_bytes(_join(store, name, f"{name}-v{version}.md"), card)
    _write_bytes(_join(store, *relative.split("/")), archive)
    _write_bytes(_join(store, *relative.split("/")) + ".sha256", f"{digest}  {relative.rsplit('/', 1)[1]}\n".encode())
    model["versions"][str(version)] = entry
    model["latest"] = max(int(v) for v in model["versions"])
    _write_store_index(store, index)
    return entry


def publish_hub_module(saved_model_dir, name, version, store):
    """Writes the SavedModel at `saved_model_dir` to `store` as `<name>/<version>`, a .tar.gz
    whose root is the SavedModel, and records it in the index entry of that version (`hub`:
    path, sha256, bytes). That is tensorflow_hub's hosting protocol: served over HTTP,
    `hub.load("http://HOST/<name>/<version>")` asks for `?tf-hub-format=compressed` and unpacks
    the archive into its cache; a static server ignores the query and sends the file."""
    checked_model_name(name)
    index = read_store_index(store)
    entry = index["models"].get(name, {}).get("versions", {}).get(str(version))
    if entry is None:
        raise ValueError(f"{store}: publish {name} v{version} before its hub module")
    if hub_module_published(store, name, version):
        return entry["hub"]  # versions are immutable: the module users may have cached stays as it is
    archive = pack_folder(saved_model_dir, "", with_directories=True)
    relative = f"{name}/{version}"
    _write_bytes(_join(store, name, str(version)), archive)
    entry["hub"] = {"path": relative, "sha256": hashlib.sha256(archive).hexdigest(), "bytes": len(archive)}
    _write_store_index(store, index)
    return entry["hub"]


def hub_module_published(store, name, version):
    """Whether `store` holds the hub module of `name` v`version` as its index records it (same
    sha256): then publishing that version again leaves it alone (a SavedModel exported twice is
    not byte-identical, and users' tensorflow_hub caches hold the first)."""
    entry = read_store_index(store)["models"].get(name, {}).get("versions", {}).get(str(version)) or {}
    hub = entry.get("hub")
    if not isinstance(hub, dict) or "sha256" not in hub:
        return False
    try:
        data = _read_bytes(_join(store, name, str(version)), max_bytes=MAX_ARCHIVE_BYTES)
    except (OSError, ValueError, tf.errors.OpError):
        return False
    return hashlib.sha256(data).hexdigest() == hub["sha256"]


class OversizedDownload(OSError):
    """The server sent bytes that cannot be the archive (more than declared): the partial
    download is discarded, not kept for a resume."""


class ShortArchive(ValueError):
    """The archive ended (cleanly) before the size the index declares: the partial download is
    discarded, not kept for a resume that could never complete it."""


def _download(location, partial, expected_bytes, progress):
    """Appends the rest of `location` to the open binary file `partial` (read and write, at
    its end); returns the sha256 of the whole file. Bytes already in `partial` are hashed
    and kept when the server honours the range request, replaced when it does not."""
    digest, received = hashlib.sha256(), 0
    partial.seek(0)
    while chunk := partial.read(1 << 20):
        digest.update(chunk)
        received += len(chunk)
    if expected_bytes is not None and received >= expected_bytes:
        return digest.hexdigest()  # complete already (a fetch killed before it checked)
    # Idle limit: the socket timeout of `_open_binary`; total limit: a floor of
    # MIN_FETCH_BYTES_PER_S on average, so a server that drips bytes cannot hold a fetch open.
    allowed_s = FETCH_IDLE_TIMEOUT_S + ((expected_bytes or 0) - received) / MIN_FETCH_BYTES_PER_S
    deadline = time.monotonic() + allowed_s
    source, offset = _open_binary(location, received)
    if offset != received:  # the server sends the whole file: start over
        partial.seek(0)
        partial.truncate()
        digest, received = hashlib.sha256(), 0
    with (
        source,
        tqdm(
            total=expected_bytes,
            initial=received,
            unit="B",
            unit_scale=True,
            desc=f"fetch {location.rsplit('/', 1)[-1]}" + (f" (resumed at {received} B)" if received else ""),
            disable=not progress,
        ) as bar,
    ):
        # Never read past the size the index declares: one byte more proves the stream is
        # too long, and a server that streams forever cannot fill the disk.
        limit = None if expected_bytes is None else expected_bytes + 1
        read = getattr(source, "read1", source.read)  # what has arrived: a kill loses at most the chunk in flight
        while chunk := read(1 << 20 if limit is None else min(1 << 20, limit - received)):
            received += len(chunk)
            if expected_bytes is not None and received > expected_bytes:
                raise OversizedDownload(
                    f"{location}: the server sent more than the {expected_bytes} bytes the store's index "
                    "declares; download stopped, nothing was cached"
                )
            if time.monotonic() > deadline:
                raise TimeoutError(
                    f"{location}: {received} bytes in {allowed_s:.0f} s, slower than {MIN_FETCH_BYTES_PER_S} B/s "
                    "on average; download stopped, nothing was cached (fetch again to resume)"
                )
            partial.write(chunk)
            partial.flush()  # on disk for a resume, whatever happens to this process next
            digest.update(chunk)
            bar.update(len(chunk))
        # An http response that stopped before its own Content-Length lost its connection.
        interrupted = isinstance(getattr(source, "length", None), int) and source.length > 0
    partial.flush()
    if expected_bytes is not None and received != expected_bytes and interrupted:
        raise OSError(
            f"{location}: download interrupted after {received} of {expected_bytes} bytes; "
            "nothing was cached (fetch again to resume)"
        )
    if expected_bytes is not None and received != expected_bytes:
        # The stream ended as its server announced it: the store's file is shorter than its index
        # says, and no retry can change that.
        raise ShortArchive(
            f"{location}: the store's index declares {expected_bytes} bytes, but the archive ends after "
            f"{received}; the index is wrong or the archive truncated: nothing was cached or kept"
        )
    return digest.hexdigest()


def _cached_sha256(folder):
    """The archive sha256 a completed fetch recorded in `folder`, or None."""
    try:
        with open(os.path.join(folder, FETCHED_MARKER), encoding="utf-8") as f:
            return json.load(f).get("sha256")
    except (FileNotFoundError, NotADirectoryError, ValueError, AttributeError):
        return None


def fetch_model(name, store, version=None, home=None, progress=True):
    """The cached folder of `name` (latest or given `version`) from `store`, downloading,
    verifying and unpacking it first when it is not in the cache yet."""
    checked_model_name(name)
    index = read_store_index(store)
    if name not in index["models"]:
        raise ValueError(f"{store} has no model {name!r}; it has {sorted(index['models'])}")
    model = require_keys(index["models"][name], ["latest", "versions"], f"{store}: index entry of {name}")
    version = version or model["latest"]
    if isinstance(version, bool) or not isinstance(version, int | str) or not str(version).isdigit():
        raise ValueError(f"{store}: index entry of {name}: invalid version {version!r} (a positive int)")
    version = int(version)
    entry = model["versions"].get(str(version)) if isinstance(model["versions"], dict) else None
    if entry is None:
        raise ValueError(
            f"{store} has no version {version} of {name!r}; it has {sorted(int(v) for v in model['versions'])}"
        )
    require_keys(entry, ["archive", "sha256"], f"{store}: index entry of {name} v{version}")
    if not isinstance(entry["sha256"], str) or not re.fullmatch(r"[0-9a-f]{64}", entry["sha256"]):
        raise ValueError(f"{store}: index entry of {name} v{version} has an invalid sha256 {entry['sha256']!r}")
    target = cached_model_dir(name, version, home)
    clean_leftovers_of(target)  # what killed fetches left: staging folders, old copies
    remove_stale_files(os.path.dirname(target), f".{name}-v{version}.download-")  # older releases' downloads
    if _cached_sha256(target) == entry["sha256"]:
        return target
    archive = entry["archive"]  # require_keys above: entry is a dict holding it
    if not isinstance(archive, str) or not ARCHIVE_PATH.fullmatch(archive) or ".." in archive:
        raise ValueError(f"{store}: index entry of {name} v{version} has an invalid archive path {archive!r}")
    expected_bytes = entry.get("bytes")
    if expected_bytes is None:  # every download is bounded by the size the index declares
        raise ValueError(
            f"{store}: index entry of {name} v{version} declares no size (bytes); a fetch is bounded by it, so "
            "this store cannot be fetched from (keras-sentemb zoo publish records it)"
        )
    if (
        isinstance(expected_bytes, bool)
        or not isinstance(expected_bytes, int)
        or not 0 < expected_bytes <= MAX_ARCHIVE_BYTES
    ):
        raise ValueError(
            f"{store}: index entry of {name} v{version} has an invalid size {expected_bytes!r} "
            f"(a positive int up to {MAX_ARCHIVE_BYTES})"
        )
    location = _join(store, *archive.split("/"))
    downloads = os.path.join(home or zoo_home(), "downloads")
    os.makedirs(downloads, exist_ok=True)
    os.makedirs(os.path.dirname(target), exist_ok=True)
    partial_path = os.path.join(downloads, f"{name}-v{version}-{entry['sha256'][:16]}.tar.gz.partial")
    _remove_unlocked_partials(downloads, f"{name}-v{version}-", keep=partial_path)
    with _locked_partial(partial_path) as partial:  # another fetch of this archive finishes first
        if _cached_sha256(target) == entry["sha256"]:
            _remove(partial_path)  # the empty file this fetch's lock created: the other one did the work
            return target
        try:
            digest = _download(location, partial, expected_bytes, progress)
            if digest != entry["sha256"]:
                raise ValueError(
                    f"{location}: sha256 {digest} does not match the store's "
                    f"{entry['sha256']}; the archive is corrupted, nothing was cached"
                )
            try:
                # overwrite: a cached copy whose marker does not match is replaced in one step.
                with atomic_directory(target, overwrite=True) as staging:
                    unpack_archive(partial_path, name, staging)
                    with open(os.path.join(staging, FETCHED_MARKER), "w", encoding="utf-8") as f:
                        json.dump({"sha256": digest, "store": os.fspath(store), "version": version}, f)
            except FileExistsError:
                if _cached_sha256(target) != entry["sha256"]:  # another fetch of the same entry won: use it
                    raise
        except BaseException as error:
            if not _worth_resuming(error, partial):
                _remove(partial_path)  # a retry starts from zero
            elif isinstance(error, Exception):  # said where the user reads the failure (the CLI prints notes)
                error.add_note(
                    f"the {os.fstat(partial.fileno()).st_size} bytes downloaded are kept in {partial_path}: the next "
                    f"fetch of {name} v{version} resumes from them (delete that file to free the space)"
                )
            raise
        _remove(partial_path)
    return target


def _worth_resuming(error, partial):
    """Whether a failed download's partial file should stay for the next fetch: not when it
    proved wrong (too long, bad sha256, an archive that does not unpack: `ValueError`), when the
    server's file is shorter than it (HTTP 416), or when nothing arrived."""
    proven_wrong = isinstance(error, (OversizedDownload, ValueError)) or (
        isinstance(error, urllib.error.HTTPError) and error.code == 416
    )
    return not proven_wrong and os.fstat(partial.fileno()).st_size > 0


@contextlib.contextmanager
def _locked_partial(path):
    """`path` opened for appending, under an exclusive `flock`; when the holder before us
    deleted the file (done, or proven wrong), the lock is taken again on a fresh one."""
    while True:
        partial = open(path, "a+b")
        try:
            fcntl.flock(partial.fileno(), fcntl.LOCK_EX)
            with contextlib.suppress(FileNotFoundError):
                if os.stat(path).st_ino == os.fstat(partial.fileno()).st_ino:
                    yield partial
                    return
        finally:
            partial.close()


def _remove(path):
    with contextlib.suppress(FileNotFoundError):
        os.remove(path)


def _remove_unlocked_partials(downloads, prefix, keep):
    """Deletes partial downloads of other archives of the same model version (a store that
    was republished under another sha256), unless a live fetch holds them."""
    for path in glob.glob(os.path.join(glob.escape(downloads), glob.escape(prefix) + "*.tar.gz.partial")):
        if path == keep:
            continue
        with contextlib.suppress(OSError), open(path, "rb") as f:
            fcntl.flock(f.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
            _remove(path)
