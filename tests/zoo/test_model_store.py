"""Publishing to a store and fetching into the cache: verified, atomic, and safe against
hostile archives."""

import contextlib
import errno
import functools
import hashlib
import http.client
import http.server
import json
import os
import re
import signal
import subprocess
import sys
import tarfile
import threading
import time

import pytest

from keras_sentemb.zoo import model_store
from keras_sentemb.zoo.model_store import (
    cached_model_dir,
    fetch_model,
    publish_folder,
    read_store_index,
)
from tests.zoo.test_safe_archive import device, hostile_archive, link, regular_file


def model_folder(tmp_path, text="weights v1"):
    folder = tmp_path / "model"
    (folder / "sub").mkdir(parents=True)
    (folder / "config.json").write_text('{"name": "toy"}', encoding="utf-8")
    (folder / "sub" / "weights.bin").write_bytes(text.encode() * 1000)
    return folder


@contextlib.contextmanager
def serve(folder, handler_class=http.server.SimpleHTTPRequestHandler):
    """A loopback HTTP server over `folder` for the duration of the block."""
    handler = functools.partial(handler_class, directory=str(folder))
    handler_class.log_message = lambda *args: None
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


def store_with(tmp_path, data, name="toy", **entry):
    """A store whose index lists `data` as the archive of `name` v1 (sha256 and size of
    `data` unless `entry` overrides them)."""
    store = tmp_path / "store"
    (store / name).mkdir(parents=True, exist_ok=True)
    (store / name / f"{name}-v1.tar.gz").write_bytes(data)
    entry = {
        "archive": f"{name}/{name}-v1.tar.gz",
        "sha256": hashlib.sha256(data).hexdigest(),
        "bytes": len(data),
    } | entry
    (store / "index.json").write_text(json.dumps({"models": {name: {"latest": 1, "versions": {"1": entry}}}}))
    return store


def partial_downloads(home):
    folder = home / "downloads"
    return sorted(os.listdir(folder)) if folder.exists() else []


def files_under(folder):
    return {
        os.path.relpath(os.path.join(root, name), folder): open(os.path.join(root, name), "rb").read()
        for root, _, names in os.walk(folder)
        for name in names
        if not name.startswith(".")
    }


def test_publish_then_fetch_over_http_gives_the_same_files(tmp_path):
    store, home = tmp_path / "store", tmp_path / "home"
    entry = publish_folder(model_folder(tmp_path), "toy", 1, store)
    assert (store / "toy" / "toy-v1.tar.gz.sha256").read_text().split()[0] == entry["sha256"]
    assert read_store_index(store)["models"]["toy"]["latest"] == 1
    with serve(store) as url:
        fetched = fetch_model("toy", url, home=str(home), progress=False)
    assert fetched == cached_model_dir("toy", 1, str(home))
    assert files_under(fetched) == files_under(tmp_path / "model")
    # a second fetch is served from the verified cache, without the store
    assert fetch_model("toy", store, home=str(home)) == fetched


def test_a_cached_fetch_still_removes_what_killed_fetches_left(tmp_path):
    import subprocess

    store, home = tmp_path / "store", tmp_path / "home"
    publish_folder(model_folder(tmp_path), "toy", 1, store)
    fetched = fetch_model("toy", str(store), home=str(home), progress=False)
    gone = subprocess.Popen(["true"])
    gone.wait()  # a pid whose process has ended, like a fetch killed with -9
    parent = os.path.dirname(fetched)
    leftovers = [f".1.tmp-{gone.pid}-abc", f".1.old-{gone.pid}-abc", f".toy-v1.download-{gone.pid}-abc.tar.gz"]
    for name in leftovers:
        (os.mkdir if ".tar.gz" not in name else lambda p: open(p, "wb").close())(os.path.join(parent, name))
    live = f".toy-v1.download-{os.getpid()}-abc.tar.gz"  # a fetch still running: kept
    open(os.path.join(parent, live), "wb").close()
    assert fetch_model("toy", str(store), home=str(home), progress=False) == fetched
    assert sorted(os.listdir(parent)) == sorted(["1", live])


def test_a_file_url_store_and_versions(tmp_path):
    store = tmp_path / "store"
    publish_folder(model_folder(tmp_path), "toy", 1, f"file://{store}")
    publish_folder(model_folder(tmp_path / "b", text="weights v2"), "toy", 2, store)
    index = read_store_index(store)["models"]["toy"]
    assert index["latest"] == 2 and sorted(index["versions"]) == ["1", "2"]
    older = fetch_model("toy", store, version=1, home=str(tmp_path / "home"), progress=False)
    assert files_under(older)["sub/weights.bin"].startswith(b"weights v1")
    with pytest.raises(FileExistsError, match="already in"):
        publish_folder(model_folder(tmp_path / "c", text="changed"), "toy", 1, store)


def test_a_corrupted_byte_is_a_sha256_error_and_leaves_nothing_cached(tmp_path):
    store, home = tmp_path / "store", tmp_path / "home"
    publish_folder(model_folder(tmp_path), "toy", 1, store)
    archive = store / "toy" / "toy-v1.tar.gz"
    data = bytearray(archive.read_bytes())
    data[len(data) // 2] ^= 0x01
    archive.write_bytes(bytes(data))
    with serve(store) as url, pytest.raises(ValueError, match="sha256 .* does not match"):
        fetch_model("toy", url, home=str(home), progress=False)
    assert os.listdir(home / "zoo" / "toy") == []


class TruncatingHandler(http.server.SimpleHTTPRequestHandler):
    """Announces the full archive but sends half of it, then drops the connection."""

    def do_GET(self):
        if not self.path.endswith(".tar.gz"):
            return super().do_GET()
        data = open(os.path.join(self.directory, self.path.lstrip("/")), "rb").read()
        self.send_response(200)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data[: len(data) // 2])
        self.wfile.flush()
        self.after_half()

    def after_half(self):
        self.close_connection = True


class RangeHandler(http.server.SimpleHTTPRequestHandler):
    """A static server that honours `Range: bytes=N-` as nginx, S3 or GCS do (http.server
    does not); `ranges` records the Range header of every archive request."""

    ranges = []

    def do_GET(self):
        if not self.path.endswith(".tar.gz"):
            return super().do_GET()
        data = open(os.path.join(self.directory, self.path.lstrip("/")), "rb").read()
        asked = self.headers.get("Range")
        type(self).ranges.append(asked)
        start = int(re.fullmatch(r"bytes=(\d+)-", asked).group(1)) if asked else 0
        if start >= len(data) and asked:
            self.send_response(416)
            self.send_header("Content-Range", f"bytes */{len(data)}")
            self.end_headers()
            return
        self.send_response(206 if asked else 200)
        if asked:
            self.send_header("Content-Range", f"bytes {start}-{len(data) - 1}/{len(data)}")
        self.send_header("Content-Length", str(len(data) - start))
        self.end_headers()
        self.wfile.write(data[start:])


def test_an_interrupted_download_caches_nothing_and_the_next_fetch_resumes_it(tmp_path):
    store, home = tmp_path / "store", tmp_path / "home"
    entry = publish_folder(model_folder(tmp_path), "toy", 1, store)
    with serve(store, TruncatingHandler) as url, pytest.raises(OSError, match="fetch again to resume"):
        fetch_model("toy", url, home=str(home), progress=False)
    assert os.listdir(home / "zoo" / "toy") == []
    (partial,) = partial_downloads(home)
    assert os.path.getsize(home / "downloads" / partial) == entry["bytes"] // 2
    RangeHandler.ranges = []
    with serve(store, RangeHandler) as url:
        fetched = fetch_model("toy", url, home=str(home), progress=False)
    assert RangeHandler.ranges == [f"bytes={entry['bytes'] // 2}-"]
    assert files_under(fetched) == files_under(tmp_path / "model")
    assert partial_downloads(home) == []


def test_a_server_that_ignores_the_range_sends_everything_again_and_that_is_fine(tmp_path):
    store, home = tmp_path / "store", tmp_path / "home"
    publish_folder(model_folder(tmp_path), "toy", 1, store)
    with serve(store, TruncatingHandler) as url, pytest.raises(OSError):
        fetch_model("toy", url, home=str(home), progress=False)
    with serve(store) as url:  # http.server answers a Range request with 200 and the whole file
        fetched = fetch_model("toy", url, home=str(home), progress=False)
    assert files_under(fetched) == files_under(tmp_path / "model") and partial_downloads(home) == []


def test_a_partial_longer_than_the_servers_file_is_discarded(tmp_path):
    store, home = tmp_path / "store", tmp_path / "home"
    entry = publish_folder(model_folder(tmp_path), "toy", 1, store)
    archive = store / "toy" / "toy-v1.tar.gz"
    full = archive.read_bytes()
    archive.write_bytes(full[: len(full) // 4])  # the server's copy is truncated; the index declares the whole
    (home / "downloads").mkdir(parents=True)
    (home / "downloads" / f"toy-v1-{entry['sha256'][:16]}.tar.gz.partial").write_bytes(full[: len(full) // 2])
    with serve(store, RangeHandler) as url, pytest.raises(OSError, match="416"):
        fetch_model("toy", url, home=str(home), progress=False)
    assert partial_downloads(home) == [] and os.listdir(home / "zoo" / "toy") == []


KILLED_FETCH = """
import sys
from keras_sentemb.zoo.model_store import fetch_model
fetch_model("toy", sys.argv[1], home=sys.argv[2], progress=False)
"""


class StallingHandler(TruncatingHandler):
    """Sends the first half of an archive, then holds the connection open until `release`."""

    release = threading.Event()

    def after_half(self):
        type(self).release.wait(60)


def test_a_fetch_killed_mid_download_leaves_no_model_and_the_retry_resumes(tmp_path):
    store, home = tmp_path / "store", tmp_path / "home"
    entry = publish_folder(model_folder(tmp_path), "toy", 1, store)
    half = entry["bytes"] // 2
    with serve(store, StallingHandler) as url:
        child = subprocess.Popen([sys.executable, "-c", KILLED_FETCH, url, str(home)], cwd=os.getcwd())
        deadline = time.monotonic() + 120
        while not any(os.path.getsize(home / "downloads" / p) >= half for p in partial_downloads(home)):
            assert child.poll() is None and time.monotonic() < deadline, "the fetch ended before it was killed"
            time.sleep(0.05)
        child.send_signal(signal.SIGKILL)
        child.wait()
        StallingHandler.release.set()
    assert not (home / "zoo" / "toy" / "1").exists() and os.listdir(home / "zoo" / "toy") == []
    RangeHandler.ranges = []
    with serve(store, RangeHandler) as url:
        fetched = fetch_model("toy", url, home=str(home), progress=False)
    assert RangeHandler.ranges == [f"bytes={half}-"]
    assert files_under(fetched) == files_under(tmp_path / "model") and partial_downloads(home) == []


class EndlessHandler(http.server.SimpleHTTPRequestHandler):
    """Streams zeros for every path `streams` picks (every archive), without a length, until
    the client hangs up; `sent` counts the bytes the socket took."""

    sent = 0

    def streams(self, path):
        return path.endswith(".tar.gz")

    def do_GET(self):
        if not self.streams(self.path):
            return super().do_GET()
        self.send_response(200)
        self.end_headers()
        with contextlib.suppress(OSError):
            while True:
                self.wfile.write(b"\0" * 65536)
                type(self).sent += 65536


def test_a_stream_longer_than_the_index_declares_stops_one_byte_past_it(tmp_path, monkeypatch):
    store, home = tmp_path / "store", tmp_path / "home"
    declared = publish_folder(model_folder(tmp_path), "toy", 1, store)["bytes"]
    read = []
    real_open = model_store._open_binary

    class Counting:
        def __init__(self, stream):
            self.stream = stream

        def __enter__(self):
            return self

        def __exit__(self, *exc):
            self.stream.close()

        def read(self, size=-1):
            chunk = self.stream.read(size)
            read.append(len(chunk))
            return chunk

    def counted(location, offset=0):
        stream, offset = real_open(location, offset)
        return (Counting(stream) if location.endswith(".tar.gz") else stream), offset

    monkeypatch.setattr(model_store, "_open_binary", counted)
    with serve(store, EndlessHandler) as url, pytest.raises(OSError, match=f"more than the {declared} bytes"):
        fetch_model("toy", url, home=str(home), progress=False)
    assert sum(read) == declared + 1
    assert os.listdir(home / "zoo" / "toy") == [] and partial_downloads(home) == []


def test_a_drip_feeding_server_hits_the_total_time_limit(tmp_path, monkeypatch):
    store, home = tmp_path / "store", tmp_path / "home"
    publish_folder(model_folder(tmp_path), "toy", 1, store)

    class SlowClock:  # every look at the clock finds 100 s more gone: a server dripping bytes
        now = 0.0

        @classmethod
        def monotonic(cls):
            cls.now += 100.0
            return cls.now

    monkeypatch.setattr(model_store, "time", SlowClock)
    with serve(store) as url, pytest.raises(TimeoutError, match="download stopped"):
        fetch_model("toy", url, home=str(home), progress=False)
    assert os.listdir(home / "zoo" / "toy") == []


@pytest.mark.parametrize(
    "add, message",
    [
        (regular_file("toy/../../escaped.txt"), "would escape"),
        (regular_file("/etc/evil"), "would escape"),
        (link("toy/passwd", "/etc/passwd", tarfile.SYMTYPE), "is a link"),
        (link("toy/hard", "toy/config.json", tarfile.LNKTYPE), "is a link"),
        (device("toy/null", tarfile.CHRTYPE), "only regular files"),
        (device("toy/disk", tarfile.BLKTYPE), "only regular files"),
        (device("toy/pipe", tarfile.FIFOTYPE), "only regular files"),
    ],
    ids=["dotdot", "absolute", "symlink", "hardlink", "char-device", "block-device", "fifo"],
)
def test_a_malicious_archive_over_http_is_refused_and_caches_nothing(tmp_path, add, message):
    store, home = store_with(tmp_path, hostile_archive(tmp_path, add).read_bytes()), tmp_path / "home"
    with serve(store) as url, pytest.raises(ValueError, match=message):
        fetch_model("toy", url, home=str(home), progress=False)
    assert os.listdir(home / "zoo" / "toy") == [] and partial_downloads(home) == []
    assert not (tmp_path / "escaped.txt").exists() and not os.path.exists("/etc/evil")


def test_a_truncated_archive_published_as_is_fails_to_unpack_and_caches_nothing(tmp_path):
    publish_folder(model_folder(tmp_path), "toy", 1, tmp_path / "good")
    whole = (tmp_path / "good" / "toy" / "toy-v1.tar.gz").read_bytes()
    store, home = store_with(tmp_path, whole[: len(whole) // 2]), tmp_path / "home"  # its own sha256 and size
    with serve(store) as url, pytest.raises(ValueError, match="damaged or truncated"):
        fetch_model("toy", url, home=str(home), progress=False)
    assert os.listdir(home / "zoo" / "toy") == [] and partial_downloads(home) == []


@pytest.mark.parametrize(
    "entry, message",
    [
        ({"sha256": "../../etc"}, "invalid sha256"),
        ({"bytes": "lots"}, "invalid size"),
        ({"archive": "ftp://example.org/toy.tar.gz"}, "invalid archive path"),
    ],
)
def test_a_hostile_index_entry_is_named_before_anything_is_downloaded(tmp_path, entry, message):
    store, home = store_with(tmp_path, b"irrelevant", **entry), tmp_path / "home"
    with serve(store) as url, pytest.raises(ValueError, match=message):
        fetch_model("toy", url, home=str(home), progress=False)
    assert partial_downloads(home) == []


def test_a_hostile_latest_version_is_named(tmp_path):
    store = store_with(tmp_path, b"x")
    index = json.loads((store / "index.json").read_text())
    index["models"]["toy"]["latest"] = "../1"
    (store / "index.json").write_text(json.dumps(index))
    with serve(store) as url, pytest.raises(ValueError, match=r"invalid version '../1'"):
        fetch_model("toy", url, home=str(tmp_path / "home"), progress=False)


@pytest.mark.parametrize("store", ["ftp://example.org/zoo", "data:text/plain,hello", "javascript://x"])
def test_unsupported_store_schemes_are_named(tmp_path, store):
    with pytest.raises(ValueError, match="unsupported store scheme"):
        fetch_model("toy", store, home=str(tmp_path / "home"), progress=False)
    assert not (tmp_path / "home").exists()


class RedirectingHandler(http.server.SimpleHTTPRequestHandler):
    target = "file:///etc/passwd"

    def do_GET(self):
        if not self.path.endswith(".tar.gz"):
            return super().do_GET()
        self.send_response(302)
        self.send_header("Location", type(self).target)
        self.end_headers()


@pytest.mark.parametrize("target", ["file:///etc/passwd", "ftp://127.0.0.1/toy.tar.gz"])
def test_a_redirect_away_from_http_is_refused(tmp_path, target):
    store, home = store_with(tmp_path, b"x" * 10), tmp_path / "home"
    RedirectingHandler.target = target
    with serve(store, RedirectingHandler) as url, pytest.raises(Exception, match="(?i)redirect"):
        fetch_model("toy", url, home=str(home), progress=False)
    assert os.listdir(home / "zoo" / "toy") == []


def test_a_missing_archive_is_a_404_and_leaves_no_partial_download(tmp_path):
    store, home = tmp_path / "store", tmp_path / "home"
    publish_folder(model_folder(tmp_path), "toy", 1, store)
    (store / "toy" / "toy-v1.tar.gz").unlink()
    with serve(store) as url, pytest.raises(OSError, match="404"):
        fetch_model("toy", url, home=str(home), progress=False)
    assert partial_downloads(home) == [] and os.listdir(home / "zoo" / "toy") == []


def test_unknown_models_and_versions_are_named(tmp_path):
    store = tmp_path / "store"
    publish_folder(model_folder(tmp_path), "toy", 1, store)
    with pytest.raises(ValueError, match=r"has no model 'other'; it has \['toy'\]"):
        fetch_model("other", store, home=str(tmp_path / "h"))
    with pytest.raises(ValueError, match=r"no version 3 of 'toy'; it has \[1\]"):
        fetch_model("toy", store, version=3, home=str(tmp_path / "h"))
    with pytest.raises(ValueError, match="fetch-only"):
        publish_folder(model_folder(tmp_path / "x"), "toy", 2, "http://127.0.0.1:9/store")


def test_a_tf_gfile_store_works_like_a_folder(tmp_path):
    """Stores other than folders and http go through tf.io.gfile (gs://, s3://, …); TF's
    in-memory ram:// file system stands in for a bucket here."""
    store = f"ram://zoo-store-{os.getpid()}"
    entry = publish_folder(model_folder(tmp_path), "toy", 1, store)
    assert read_store_index(store)["models"]["toy"]["versions"]["1"]["sha256"] == entry["sha256"]
    fetched = fetch_model("toy", store, home=str(tmp_path / "home"), progress=False)
    assert files_under(fetched) == files_under(tmp_path / "model")


@pytest.mark.parametrize("name", ["../x", "/abs", "a/b", "UPPER", "..", "x..y", ""])
def test_hostile_model_names_are_refused_before_touching_the_cache(tmp_path, name):
    with pytest.raises(ValueError, match="invalid model name"):
        fetch_model(name, tmp_path / "store", home=str(tmp_path / "home"), progress=False)
    assert not (tmp_path / "home").exists()


@pytest.mark.parametrize("archive", ["../../x.tar.gz", "/etc/x.tar.gz", "toy/../../x.tar.gz", "http://e/x.tar.gz"])
def test_an_index_entry_pointing_outside_the_store_is_refused(tmp_path, archive):
    store = tmp_path / "store"
    store.mkdir()
    entry = {"archive": archive, "sha256": "0" * 64, "bytes": 1}
    (store / "index.json").write_text(json.dumps({"models": {"toy": {"latest": 1, "versions": {"1": entry}}}}))
    with pytest.raises(ValueError, match="invalid archive path"):
        fetch_model("toy", store, home=str(tmp_path / "home"), progress=False)


def test_a_huge_store_index_is_refused_without_reading_it_whole(tmp_path):
    store = tmp_path / "store"
    store.mkdir()
    with open(store / "index.json", "wb") as f:
        f.write(b'{"models": {}, "padding": "' + b"x" * (model_store.MAX_INDEX_BYTES + 10) + b'"}')
    with pytest.raises(ValueError, match=r"index.json: larger than 16777216 bytes"):
        read_store_index(str(store))


def test_an_index_entry_without_its_hash_is_named_not_a_key_error(tmp_path):
    store = tmp_path / "store"
    store.mkdir()
    (store / "index.json").write_text(
        '{"models": {"toy": {"latest": 1, "versions": {"1": {"archive": "toy/a.tar.gz"}}}}}'
    )
    with pytest.raises(ValueError, match=r"index entry of toy v1: missing key\(s\) \['sha256'\]"):
        fetch_model("toy", str(store), home=str(tmp_path / "home"), progress=False)
    (store / "index.json").write_text('{"models": {"toy": {"versions": {}}}}')
    with pytest.raises(ValueError, match=r"index entry of toy: missing key\(s\) \['latest'\]"):
        fetch_model("toy", str(store), home=str(tmp_path / "home"), progress=False)


def toy_archive(tmp_path):
    publish_folder(model_folder(tmp_path), "toy", 1, tmp_path / "good")
    return (tmp_path / "good" / "toy" / "toy-v1.tar.gz").read_bytes()


@pytest.mark.parametrize("over", [1, 10_000])
def test_an_index_that_overstates_the_size_is_a_clear_error_that_keeps_nothing(tmp_path, over):
    whole = toy_archive(tmp_path)
    store, home = store_with(tmp_path, whole, bytes=len(whole) + over), tmp_path / "home"
    for location in (str(store), None):
        with contextlib.ExitStack() as stack:
            location = location or stack.enter_context(serve(store))
            with pytest.raises(ValueError, match=f"declares {len(whole) + over} bytes, but the archive ends after"):
                fetch_model("toy", location, home=str(home), progress=False)
        assert partial_downloads(home) == [] and os.listdir(home / "zoo" / "toy") == []


def test_an_index_without_a_size_is_refused_before_anything_is_downloaded(tmp_path):
    whole = toy_archive(tmp_path)
    store, home = store_with(tmp_path, whole), tmp_path / "home"
    index = json.loads((store / "index.json").read_text())
    del index["models"]["toy"]["versions"]["1"]["bytes"]
    (store / "index.json").write_text(json.dumps(index))
    with serve(store) as url, pytest.raises(ValueError, match="declares no size"):
        fetch_model("toy", url, home=str(home), progress=False)
    assert partial_downloads(home) == []


def test_an_index_declaring_an_impossible_size_is_refused(tmp_path):
    store, home = store_with(tmp_path, b"x", bytes=model_store.MAX_ARCHIVE_BYTES + 1), tmp_path / "home"
    with pytest.raises(ValueError, match="invalid size"):
        fetch_model("toy", str(store), home=str(home), progress=False)


def test_concurrent_fetches_of_one_model_both_succeed_and_leave_no_partial(tmp_path):
    store, home = tmp_path / "store", tmp_path / "home"
    publish_folder(model_folder(tmp_path), "toy", 1, store)
    results, errors = [], []

    def fetch():
        try:
            results.append(fetch_model("toy", str(store), home=str(home), progress=False))
        except Exception as error:  # noqa: BLE001  (reported below)
            errors.append(error)

    with serve(store, SlowHandler) as url:
        store = url
        threads = [threading.Thread(target=fetch) for _ in range(3)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    assert errors == [] and len(set(results)) == 1
    assert partial_downloads(home) == []


class SlowHandler(http.server.SimpleHTTPRequestHandler):
    """Sends archives slowly enough that concurrent fetches overlap."""

    def do_GET(self):
        if self.path.endswith(".tar.gz"):
            time.sleep(0.3)
        return super().do_GET()


def test_publishing_a_version_again_keeps_its_hub_module_and_its_record(tmp_path):
    store = tmp_path / "store"
    folder = model_folder(tmp_path)
    publish_folder(folder, "toy", 1, store)
    first, second = tmp_path / "saved-1", tmp_path / "saved-2"
    for saved, text in ((first, b"graph one"), (second, b"graph two: exported again, other bytes")):
        saved.mkdir()
        (saved / "saved_model.pb").write_bytes(text)
    hub = model_store.publish_hub_module(str(first), "toy", 1, store)
    module = (store / "toy" / "1").read_bytes()
    assert model_store.publish_hub_module(str(second), "toy", 1, store) == hub
    assert (store / "toy" / "1").read_bytes() == module  # the bytes users' hub caches hold
    entry = publish_folder(folder, "toy", 1, store)  # a --no-hub publish of the same version
    assert entry["hub"] == hub and read_store_index(store)["models"]["toy"]["versions"]["1"]["hub"] == hub


class FullDisk:
    """A file whose disk fills up after `room` bytes: a write past it stores what fits, then
    raises ENOSPC, as a full disk does."""

    def __init__(self, file, room):
        self.file, self.room = file, room

    def write(self, data):
        fits = max(0, self.room - self.file.tell())
        self.file.write(data[:fits])
        if len(data) > fits:
            self.file.flush()  # what fitted is on the disk
            raise OSError(errno.ENOSPC, "No space left on device")
        return len(data)

    def __getattr__(self, name):
        return getattr(self.file, name)


def test_a_full_disk_says_where_the_downloaded_bytes_are_kept_and_the_next_fetch_resumes(tmp_path, monkeypatch, capsys):
    from keras_sentemb.apps.cli import main

    store, home = tmp_path / "store", tmp_path / "home"
    entry = publish_folder(model_folder(tmp_path), "toy", 1, store)
    download = model_store._download
    monkeypatch.setenv("KERAS_SENTEMB_HOME", str(home))
    monkeypatch.setattr(
        model_store, "_download", lambda url, partial, *rest: download(url, FullDisk(partial, 100), *rest)
    )
    with serve(store, RangeHandler) as url:
        assert main(["zoo", "fetch", "toy", "--store", url]) == 2
    line = capsys.readouterr().err.strip().splitlines()[-1]  # after the progress bar
    (partial,) = partial_downloads(home)
    assert "No space left on device" in line
    assert f"kept in {home / 'downloads' / partial}: the next fetch of toy v1 resumes from them" in line
    monkeypatch.setattr(model_store, "_download", download)  # space freed
    RangeHandler.ranges = []
    with serve(store, RangeHandler) as url:
        assert main(["zoo", "fetch", "toy", "--store", url]) == 0
    assert entry["bytes"] > 100 and RangeHandler.ranges == ["bytes=100-"]
    assert partial_downloads(home) == []


@pytest.mark.parametrize(
    ("place", "refusal"),
    [
        ("the current directory", "is the current directory"),
        ("the model's folder", "is the input"),
        ("a folder above the model", "holds the input"),
        ("$HOME", "is your home folder"),
        ("a folder of the user's", r"holds 1 entry \(notes\.md\) but no index\.json"),
        ("a file", "is not a folder"),
        ("an empty folder", None),
        ("an existing store", None),
    ],
)
def test_a_store_is_a_new_or_empty_folder_or_a_store_never_a_place_of_the_users(place, refusal, tmp_path, monkeypatch):
    model = model_folder(tmp_path / "models")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    (tmp_path / "home").mkdir()
    (tmp_path / "cwd").mkdir()
    monkeypatch.chdir(tmp_path / "cwd")
    (tmp_path / "mine").mkdir()
    (tmp_path / "mine" / "notes.md").write_text("mine")
    (tmp_path / "empty").mkdir()
    (tmp_path / "plain").write_text("mine")
    existing = tmp_path / "store"
    publish_folder(model_folder(tmp_path / "other", text="other"), "other", 1, str(existing))
    store = {
        "the current directory": ".",
        "the model's folder": str(model),
        "a folder above the model": str(tmp_path / "models"),
        "$HOME": str(tmp_path / "home"),
        "a folder of the user's": str(tmp_path / "mine"),
        "a file": str(tmp_path / "plain"),
        "an empty folder": str(tmp_path / "empty"),
        "an existing store": str(existing),
    }[place]
    before = sorted(os.listdir(store)) if os.path.isdir(store) else None
    if refusal is None:
        assert publish_folder(model, "toy", 1, store)["archive"] == "toy/toy-v1.tar.gz"
        return
    with pytest.raises(ValueError, match=refusal):
        publish_folder(model, "toy", 1, store)
    assert (sorted(os.listdir(store)) if os.path.isdir(store) else None) == before
