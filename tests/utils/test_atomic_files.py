"""atomic_directory: the target is replaced only by a complete folder; a failure keeps the old one."""

import os

import pytest

from keras_sentemb.utils.atomic_files import atomic_directory


def test_a_completed_block_replaces_the_folder_and_leaves_no_temporaries(tmp_path):
    target = tmp_path / "model"
    target.mkdir()
    (target / "old.txt").write_text("old")
    with atomic_directory(target) as staging:
        with open(os.path.join(staging, "new.txt"), "w") as f:
            f.write("new")
    assert os.listdir(target) == ["new.txt"]
    assert os.listdir(tmp_path) == ["model"]


def test_a_failure_mid_write_keeps_the_previous_folder_intact(tmp_path):
    target = tmp_path / "model"
    target.mkdir()
    (target / "old.txt").write_text("old")
    with pytest.raises(RuntimeError):
        with atomic_directory(target) as staging:
            with open(os.path.join(staging, "half.txt"), "w") as f:
                f.write("half")
            raise RuntimeError("disk full")
    assert os.listdir(target) == ["old.txt"] and (target / "old.txt").read_text() == "old"
    assert os.listdir(tmp_path) == ["model"]


def test_an_atomic_file_gets_the_permissions_open_would_give(tmp_path):
    from keras_sentemb.utils.atomic_files import atomic_open

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
