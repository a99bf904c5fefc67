"""Crash-safe writes: a folder is published complete or not at all, a kill -9 at any step
leaves the old version or the new one (never neither, never a mix), concurrent writers
cannot silently replace each other, and crash leftovers are cleaned by the next writer."""

import os
import subprocess
import sys
import textwrap

import pytest

from keras_sentemb.utils import atomic_files
from keras_sentemb.utils.atomic_files import COMMIT_POINTS, atomic_directory, atomic_open
from tests.hostile_inputs import a_dead_pid

PARTS = 3


def write_version(folder, version):
    for i in range(PARTS):
        with open(os.path.join(folder, f"part{i}.txt"), "w") as f:
            f.write(version)


def read_version(target):
    """The version every part of `target` holds; fails on a mix or a missing part."""
    parts = sorted(os.listdir(target))
    assert parts == [f"part{i}.txt" for i in range(PARTS)], parts
    versions = {open(os.path.join(target, p)).read() for p in parts}
    assert len(versions) == 1, f"mixed versions {versions}"
    return versions.pop()


def test_a_completed_block_replaces_the_folder_and_leaves_no_temporaries(tmp_path):
    target = tmp_path / "model"
    target.mkdir()
    (target / "old.txt").write_text("old")
    with atomic_directory(target, overwrite=True) as staging:
        with open(os.path.join(staging, "new.txt"), "w") as f:
            f.write("new")
    assert os.listdir(target) == ["new.txt"]
    assert sorted(os.listdir(tmp_path)) == ["model"]


def test_an_existing_folder_is_kept_unless_overwrite(tmp_path):
    (tmp_path / "model").mkdir()
    with pytest.raises(FileExistsError, match="pass overwrite=True"):
        with atomic_directory(tmp_path / "model"):
            pass


def test_a_failure_mid_write_keeps_the_previous_folder_intact(tmp_path):
    target = tmp_path / "model"
    target.mkdir()
    (target / "old.txt").write_text("old")
    with pytest.raises(RuntimeError):
        with atomic_directory(target, overwrite=True) as staging:
            with open(os.path.join(staging, "half.txt"), "w") as f:
                f.write("half")
            raise RuntimeError("disk full")
    assert os.listdir(target) == ["old.txt"] and (target / "old.txt").read_text() == "old"
    assert sorted(os.listdir(tmp_path)) == ["model"]


@pytest.mark.parametrize("overwrite", [False, True])
def test_a_writer_that_loses_the_race_gets_an_error_and_the_winner_is_kept(tmp_path, overwrite):
    target = tmp_path / "index"
    if overwrite:
        target.mkdir()
        write_version(target, "v0")
    with pytest.raises(FileExistsError, match="published by another writer"):
        with atomic_directory(target, overwrite=overwrite) as slow:
            write_version(slow, "slow")
            with atomic_directory(target, overwrite=overwrite) as fast:  # starts later, commits first
                write_version(fast, "fast")
    assert read_version(target) == "fast"
    assert sorted(os.listdir(tmp_path)) == ["index"]


def test_a_failed_second_rename_puts_the_old_folder_back(tmp_path, monkeypatch):
    target = tmp_path / "model"
    target.mkdir()
    write_version(target, "v1")
    monkeypatch.setattr(atomic_files, "_renameat2", lambda *args: False)  # the two-rename fallback
    real_rename = os.rename

    def failing_rename(source, destination):
        if ".tmp-" in os.fspath(source):
            raise OSError("no space left on device")
        real_rename(source, destination)

    monkeypatch.setattr(atomic_files.os, "rename", failing_rename)
    with pytest.raises(OSError, match="no space"):
        with atomic_directory(target, overwrite=True) as staging:
            write_version(staging, "v2")
    assert read_version(target) == "v1"


CHILD = textwrap.dedent(
    """
    import importlib.util, os, sys
    spec = importlib.util.spec_from_file_location("atomic_files", sys.argv[1])
    atomic_files = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(atomic_files)  # stdlib + numpy only: no TensorFlow start-up
    if sys.argv[4] == "fallback":
        atomic_files._renameat2 = lambda *args: False
    target, version = sys.argv[2], sys.argv[3]
    with atomic_files.atomic_directory(target, overwrite=True) as staging:
        for i in range(3):
            with open(os.path.join(staging, f"part{i}.txt"), "w") as f:
                f.write(version)
            if i == 1:
                atomic_files.crash_point("writing")
    """
)


def write_in_child(target, version, mode, crash_at=None):
    env = {k: v for k, v in os.environ.items() if k != atomic_files.CRASH_ENV}
    if crash_at:
        env[atomic_files.CRASH_ENV] = crash_at
    args = [sys.executable, "-c", CHILD, atomic_files.__file__, str(target), version, mode]
    return subprocess.run(args, env=env, capture_output=True, text=True, timeout=60)


@pytest.mark.parametrize("mode", ["renameat2", "fallback"])
@pytest.mark.parametrize("point", ("writing", *COMMIT_POINTS))
def test_kill_9_at_any_step_leaves_the_old_or_the_new_version_and_the_next_writer_cleans_up(tmp_path, mode, point):
    target = tmp_path / "model"
    assert write_in_child(target, "v1", mode).returncode == 0
    killed = write_in_child(target, "v2", mode, crash_at=point)
    assert killed.returncode == -9, killed.stderr
    expected = "v1" if point in ("writing", "staged", "locked") else "v2"
    if mode == "fallback" and point == "swapped":  # old moved aside, new not yet in: the one
        assert not target.exists()  # window of the fallback; the next writer puts the old back
        atomic_files.clean_leftovers(str(tmp_path), "model")
        expected = "v1"
    assert read_version(target) == expected
    assert write_in_child(target, "v3", mode).returncode == 0
    assert read_version(target) == "v3" and sorted(os.listdir(tmp_path)) == ["model"]


def test_a_dead_writers_staging_folder_that_reappears_during_a_run_is_gone_after_it(tmp_path):
    """A killed Ray job's workers outlive their driver by seconds: one may write into the dead job's
    staging folder after the rerun's first clean-up. The rerun cleans again when it publishes."""
    with atomic_directory(tmp_path / "vectors") as staging:
        straggler = tmp_path / f".vectors.tmp-{a_dead_pid()}-late"
        straggler.mkdir()
        (straggler / "part-1.parquet").write_bytes(b"late")
        (tmp_path / "vectors.sibling").mkdir()  # not ours: kept
        open(os.path.join(staging, "rows"), "w").close()
    assert sorted(os.listdir(tmp_path)) == ["vectors", "vectors.sibling"]


def test_this_machine_swaps_folders_in_one_step(tmp_path):
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    (tmp_path / "a" / "x").write_text("a")
    assert atomic_files._renameat2(str(tmp_path / "a"), str(tmp_path / "b"), atomic_files._RENAME_EXCHANGE)
    assert (tmp_path / "b" / "x").read_text() == "a" and not (tmp_path / "a" / "x").exists()


def test_an_atomic_file_gets_the_permissions_open_would_give(tmp_path):
    mask = os.umask(0o022)
    try:
        with atomic_open(tmp_path / "report.json", "wb") as f:
            f.write(b"{}")
    finally:
        os.umask(mask)
    assert (tmp_path / "report.json").stat().st_mode & 0o777 == 0o644
    assert os.listdir(tmp_path) == ["report.json"]


def test_an_atomic_folder_gets_the_permissions_mkdir_would_give(tmp_path):
    mask = os.umask(0o022)
    try:
        with atomic_directory(tmp_path / "model") as staging:
            (open(os.path.join(staging, "a.txt"), "w")).close()
    finally:
        os.umask(mask)
    assert (tmp_path / "model").stat().st_mode & 0o777 == 0o755
