"""Kill -9 matrix for every folder writer, and a hostile store: what survives, measured.

    python benchmarks/crash_safety.py            # about 10 minutes on 2 cores

1. Crash matrix. Each writer replaces an existing copy of its folder (old -> new) in a child
   process that is killed with SIGKILL at one of five points:
     writing    killed by this script while the child writes into its staging folder
                (no hook: the kill lands wherever the writer is, 0-80 ms after the staging appears)
     staged     staging complete and fsynced, before the commit lock
     locked     commit lock held, nothing renamed yet
     swapped    new folder in place, old copy not yet deleted
     published  parent folder fsynced, before the lock is released
   Writers: `export_saved_model` (a TF Serving version folder), `build_index_folder` (an
   index folder; an index is rebuilt whole, there is no in-place add), `zoo.fetch` (a cached
   model replaced by a different archive of the same version) and `zoo build` (a zoo model
   folder). After each kill the target is read as a user would (SavedModel signature,
   IndexFolder search, load_artifact) and classified: old, new, missing (absent or not
   loadable) or mixed (loads, but its answers or files match neither version). Then the
   writer runs again without a kill: it must succeed and leave no staging, old copies or
   temporary downloads behind.
2. Hostile store: an HTTP server that streams endlessly for a 4 kB archive (the fetch must
   stop at the declared size + 1 byte; the child's peak RSS and the cache's peak disk use are
   printed) and a 1000:1 decompression bomb (refused; peak disk printed against its cap).
"""

import argparse
import contextlib
import functools
import glob
import hashlib
import http.server
import io
import json
import os
import random
import shutil
import signal
import subprocess
import sys
import tarfile
import tempfile
import textwrap
import threading
import time

import numpy as np
import psutil

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(REPO, "benchmarks"))
sys.path.insert(0, REPO)

from common import machine_description  # noqa: E402

from tests.export.test_atomic_writes import tree_digest  # noqa: E402
from tests.zoo.test_model_store import EndlessHandler  # noqa: E402

POINTS = ("writing", "staged", "locked", "swapped", "published")
PROBE = ["the cat sat on the mat", "a dog ran fast", "hello world"]

CHILD = textwrap.dedent(
    """
    import os, sys
    writer, target, version = sys.argv[1], sys.argv[2], int(sys.argv[3])
    from tests.conftest import make_tiny_encoder
    if writer == "export":
        from keras_sentemb.export import export_saved_model
        export_saved_model(make_tiny_encoder(seed=version), os.path.dirname(target), version=1, overwrite=True)
    elif writer == "index":
        from keras_sentemb.apps.index_folder import build_index_folder
        from keras_sentemb.layers import SemanticHashing
        from keras_sentemb.models import HashedEncoder
        import keras
        keras.utils.set_random_seed(version)
        hashed = HashedEncoder(make_tiny_encoder(seed=version), SemanticHashing(64))
        corpus = [f"version {version} line {i}" for i in range(12)]
        build_index_folder(corpus, target, model=hashed, overwrite=True)
    elif writer == "fetch":
        from keras_sentemb.zoo.model_store import fetch_model
        store = sys.argv[4]
        fetch_model("tiny-encoder", store, version=1, home=target.split("/zoo/")[0], progress=False)
    elif writer == "zoo-build":
        from zoo.recipes import recipes, zoo_build
        recipe = recipes.Recipe("tiny-encoder", "tiny", "tests", "none", "none", (),
                                lambda context: make_tiny_encoder(seed=version), weights_dtype="float32", needs=())
        zoo_build.RECIPES["tiny-encoder"] = recipe
        zoo_build.measure = lambda model, data_dir: ({"stsb_test_spearman": 0.5}, ["the cat"])
        zoo_dir = os.path.dirname(target)
        os.makedirs(os.path.join(zoo_dir, "data", "stsb"), exist_ok=True)
        open(os.path.join(zoo_dir, "data", "stsb", "test.tsv"), "a").close()  # measure is replaced above
        zoo_build.build_model("tiny-encoder", zoo_dir, os.path.join(zoo_dir, "data"), repo=zoo_dir,
                              cache_dir=os.path.join(zoo_dir, "cache"))
    """
)


def run_writer(writer, target, version, extra=(), crash_at=None):
    """Runs one write in a child; returns how it ended ("killed", "ok" or the error)."""
    env = {**os.environ, "PYTHONPATH": REPO, "TF_CPP_MIN_LOG_LEVEL": "3", "KERAS_BACKEND": "tensorflow"}
    env.pop("KERAS_SENTEMB_CRASH_AT", None)
    if crash_at and crash_at != "writing":
        env["KERAS_SENTEMB_CRASH_AT"] = crash_at
    command = [sys.executable, "-c", CHILD, writer, target, str(version), *extra]
    child = subprocess.Popen(command, env=env, cwd=REPO, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    if crash_at == "writing":
        parent, name = os.path.split(target)
        while child.poll() is None and not glob.glob(os.path.join(parent, f".{name}.tmp-{child.pid}-*")):
            time.sleep(0.002)
        time.sleep(random.uniform(0, 0.08))
        with contextlib.suppress(ProcessLookupError):
            os.kill(child.pid, signal.SIGKILL)
    _, err = child.communicate(timeout=600)
    if child.returncode == -signal.SIGKILL:
        return "killed"
    if child.returncode != 0:
        return "error: " + err.decode(errors="replace").strip().splitlines()[-1]
    return "ok"


def leftovers(parent, name):
    return [e for e in os.listdir(parent) if e.startswith((f".{name}.tmp-", f".{name}.old-", ".tiny-encoder-v"))]


class Readers:
    """Reads a target as a user would and says which version it holds."""

    def __init__(self):
        from tests.conftest import make_tiny_encoder

        self.vectors = {v: make_tiny_encoder(seed=v).encode(PROBE) for v in (1, 2)}

    def export(self, target, fetch_digests=None):
        import tensorflow as tf

        served = tf.saved_model.load(target).signatures["serving_default"]
        out = next(iter(served(tf.constant(PROBE)).values())).numpy()
        return self._match(out)

    def index(self, target, fetch_digests=None):
        from keras_sentemb.apps.index_folder import IndexFolder

        opened = IndexFolder(target)
        opened.search(PROBE[:1], 3)
        versions = {int(line.split()[1]) for line in opened.corpus}
        if len(versions) != 1:
            return "mixed"
        version = versions.pop()
        return self._match(opened.hashed.encoder.encode(PROBE), expected=version)

    def zoo_build(self, target, fetch_digests=None):
        from keras_sentemb.zoo.model_artifact import load_artifact

        return self._match(load_artifact(target).encode(PROBE))

    def fetch(self, target, fetch_digests):
        from keras_sentemb.zoo.model_artifact import load_artifact

        load_artifact(target)
        digest = tree_digest(target)
        return next((version for version, known in fetch_digests.items() if known == digest), "mixed")

    def _match(self, out, expected=None):
        for version, vectors in self.vectors.items():
            if np.abs(out - vectors).max() < 1e-4 and expected in (None, version):
                return version
        return "mixed"

    def classify(self, writer, target, fetch_digests=None):
        if not os.path.isdir(target):
            return "missing"
        try:
            version = getattr(self, writer.replace("-", "_"))(target, fetch_digests)
        except Exception as error:  # noqa: BLE001 - any failure to load is "missing"
            print(f"    unreadable: {type(error).__name__}: {str(error)[:120]}")
            return "missing"
        return {1: "old", 2: "new"}.get(version, version)


def fetch_stores(work):
    """Two stores holding different archives of tiny-encoder v1, and their unpacked digests."""
    from keras_sentemb.zoo import model_store
    from keras_sentemb.zoo.safe_archive import unpack_archive
    from tests.zoo.test_local_zoo import write_tiny_zoo_model

    stores, digests = {}, {}
    for version in (1, 2):
        zoo_dir = os.path.join(work, f"fetch-zoo-{version}")
        write_tiny_zoo_model(zoo_dir)
        with open(os.path.join(zoo_dir, "tiny-encoder", "card.md"), "a", encoding="utf-8") as f:
            f.write(f"\nbuild {version}\n")  # same version number, different archive
        store = os.path.join(work, f"store-{version}")
        entry = model_store.publish_folder(os.path.join(zoo_dir, "tiny-encoder"), "tiny-encoder", 1, store)
        unpacked = os.path.join(work, f"unpacked-{version}")
        os.makedirs(unpacked)
        unpack_archive(os.path.join(store, entry["archive"]), "tiny-encoder", unpacked)
        with open(os.path.join(unpacked, model_store.FETCHED_MARKER), "w", encoding="utf-8") as f:
            json.dump({"sha256": entry["sha256"], "store": store, "version": 1}, f)
        stores[version], digests[version] = store, tree_digest(unpacked)
    return stores, digests


def crash_matrix(work, writers, points):
    readers = Readers()
    stores, fetch_digests = fetch_stores(work)
    targets = {
        "export": lambda case: os.path.join(case, "serving", "tiny", "1"),
        "index": lambda case: os.path.join(case, "index"),
        "fetch": lambda case: os.path.join(case, "home", "zoo", "tiny-encoder", "1"),
        "zoo-build": lambda case: os.path.join(case, "zoo", "tiny-encoder"),
    }
    counts = {}
    print("\n## Crash matrix (kill -9 while replacing old -> new)\n")
    print("| writer | point | child | after the kill | rerun | leftovers after rerun |")
    print("|---|---|---|---|---|---|")
    for writer, target_of in ((w, targets[w]) for w in writers):
        old_extra = (stores[1],) if writer == "fetch" else ()
        new_extra = (stores[2],) if writer == "fetch" else ()
        template = os.path.join(work, f"{writer}-old")
        os.makedirs(os.path.dirname(target_of(template)), exist_ok=True)
        first = run_writer(writer, target_of(template), 1, old_extra)  # the old version, once
        assert first == "ok", f"{writer}: writing the old version failed: {first}"
        assert readers.classify(writer, target_of(template), fetch_digests) == "old"
        for point in points:
            case = os.path.join(work, f"{writer}-{point}")
            shutil.copytree(template, case, symlinks=True)
            target = target_of(case)
            ended = run_writer(writer, target, 2, new_extra, crash_at=point)
            state = readers.classify(writer, target, fetch_digests)
            rerun = run_writer(writer, target, 2, new_extra)
            after = readers.classify(writer, target, fetch_digests)
            left = leftovers(*os.path.split(target))
            counts.setdefault(writer, {"old": 0, "new": 0, "missing": 0, "mixed": 0, "clean rerun": 0})
            counts[writer][state] += 1
            counts[writer]["clean rerun"] += int(rerun == "ok" and after == "new" and not left)
            print(f"| {writer} | {point} | {ended} | {state} | {rerun} -> {after} | {left or 'none'} |", flush=True)
    print("\n| writer | runs | old | new | missing | mixed | clean rerun |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for writer, c in counts.items():
        print(
            f"| {writer} | {len(points)} | {c['old']} | {c['new']} | {c['missing']} | {c['mixed']} | {c['clean rerun']} |"
        )
    total_bad = sum(c["missing"] + c["mixed"] for c in counts.values())
    print(
        f"\nloadable as old or new: {sum(c['old'] + c['new'] for c in counts.values())} of "
        f"{len(points) * len(counts)}; missing or mixed: {total_bad}"
    )
    return total_bad


class HostileHandler(EndlessHandler):
    """Serves the store, except the endless model's archive: zeros until the client hangs up."""

    def log_message(self, *args):
        pass

    def streams(self, path):
        return "endless" in path


@contextlib.contextmanager
def serve(folder):
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(HostileHandler, directory=folder))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


def folder_bytes(folder):
    total = 0
    for root, _, files in os.walk(folder):
        for name in files:
            with contextlib.suppress(FileNotFoundError):
                total += os.path.getsize(os.path.join(root, name))
    return total


def watched_fetch(name, store, home):
    """Fetches in a child while sampling its RSS and the cache's disk use; returns the peaks."""
    script = (
        "import sys\nfrom keras_sentemb.zoo.model_store import fetch_model\n"
        "try:\n    fetch_model(sys.argv[1], sys.argv[2], home=sys.argv[3], progress=False)\n"
        "except (ValueError, OSError) as error:\n    print(type(error).__name__ + ': ' + str(error))\n"
    )
    env = {**os.environ, "PYTHONPATH": REPO, "TF_CPP_MIN_LOG_LEVEL": "3"}
    child = subprocess.Popen([sys.executable, "-c", script, name, store, home], env=env, stdout=subprocess.PIPE)
    process, peak_rss, peak_disk = psutil.Process(child.pid), 0, 0
    while child.poll() is None:
        with contextlib.suppress(psutil.Error):
            peak_rss = max(peak_rss, process.memory_info().rss)
        peak_disk = max(peak_disk, folder_bytes(home))
        time.sleep(0.005)
    out = child.stdout.read().decode().strip()
    return out, peak_rss, peak_disk


def hostile_store(work):
    from keras_sentemb.zoo import model_store
    from tests.zoo.test_local_zoo import write_tiny_zoo_model

    store = os.path.join(work, "hostile-store")
    zoo_dir = os.path.join(work, "hostile-zoo")
    write_tiny_zoo_model(zoo_dir, name="endless")
    entry = model_store.publish_folder(os.path.join(zoo_dir, "endless"), "endless", 1, store)
    bomb_path = os.path.join(store, "bomb", "bomb-v1.tar.gz")
    os.makedirs(os.path.dirname(bomb_path))
    with tarfile.open(bomb_path, "w:gz") as tar:
        info = tarfile.TarInfo("bomb/zeros.bin")
        info.size = 1 << 30  # 1 GiB of zeros
        tar.addfile(info, io.BytesIO(bytes(info.size)))
    with open(bomb_path, "rb") as f:
        bomb_bytes = f.read()
    index_path = os.path.join(store, "index.json")
    with open(index_path, encoding="utf-8") as f:
        index = json.load(f)
    index["models"]["bomb"] = {
        "latest": 1,
        "versions": {
            "1": {
                "archive": "bomb/bomb-v1.tar.gz",
                "sha256": hashlib.sha256(bomb_bytes).hexdigest(),
                "bytes": len(bomb_bytes),
            }
        },
    }
    with open(index_path, "w", encoding="utf-8") as f:
        json.dump(index, f)
    print("\n## Hostile store\n")
    print("| case | declared bytes | server sent (incl. socket buffers) | outcome | peak child RSS | peak cache disk |")
    print("|---|---:|---:|---|---:|---:|")
    with serve(store) as url:
        out, rss, disk = watched_fetch("no-such-model", url, os.path.join(work, "home-baseline"))
        print(
            f"| baseline: import and ask for an unknown model | - | - | {out[:160]} | {rss / 2**20:.0f} MiB | {disk} B |"
        )
        HostileHandler.sent = 0
        out, rss, disk = watched_fetch("endless", url, os.path.join(work, "home-endless"))
        print(
            f"| endless stream | {entry['bytes']} | {HostileHandler.sent} | {out[:160]} | {rss / 2**20:.0f} MiB | "
            f"{disk} B |"
        )
        out, rss, disk = watched_fetch("bomb", url, os.path.join(work, "home-bomb"))
        cap = 100 * len(bomb_bytes)
        print(
            f"| 1000:1 bomb ({(1 << 30) / len(bomb_bytes):.0f}:1) | {len(bomb_bytes)} | {len(bomb_bytes)} | {out[:160]} | "
            f"{rss / 2**20:.0f} MiB | {disk} B (cap {cap} B) |"
        )
    leftover = [p for p in glob.glob(os.path.join(work, "home-*", "zoo", "*", "*")) if os.path.basename(p) != "."]
    print(f"\ncache entries left by the two refused fetches: {leftover or 'none'}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--writers", default="export,index,fetch,zoo-build")
    parser.add_argument("--points", default=",".join(POINTS))
    parser.add_argument("--no-hostile-store", action="store_true")
    args = parser.parse_args()
    random.seed(0)
    print(f"# Crash safety — {machine_description()}")
    with tempfile.TemporaryDirectory(prefix="crash-safety-") as work:
        start = time.perf_counter()
        if not args.no_hostile_store:
            hostile_store(work)
        writers = [w for w in args.writers.split(",") if w]
        bad = crash_matrix(work, writers, args.points.split(",")) if writers else 0
        print(f"\n{time.perf_counter() - start:.0f} s")
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
