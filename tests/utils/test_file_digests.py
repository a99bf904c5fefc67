"""A file's sha256 is hashed once and remembered while the file stays as it was."""

import os

from keras_sentemb.utils import file_digests


def test_a_stamped_digest_is_reused_until_the_file_changes(tmp_path, monkeypatch):
    monkeypatch.setenv("KERAS_SENTEMB_HOME", str(tmp_path / "home"))
    path = tmp_path / "weights.bin"
    path.write_bytes(b"abc")
    hashed = []
    real = file_digests.file_sha256
    monkeypatch.setattr(file_digests, "file_sha256", lambda p: hashed.append(p) or real(p))
    first = file_digests.stamped_file_sha256(path)
    assert file_digests.stamped_file_sha256(path) == first and len(hashed) == 1
    path.write_bytes(b"abd")  # same size: the modification time tells
    os.utime(path, ns=(0, os.stat(path).st_mtime_ns + 1_000_000))
    assert file_digests.stamped_file_sha256(path) == real(path) != first and len(hashed) == 2


def test_a_damaged_stamp_is_ignored_and_rewritten(tmp_path, monkeypatch):
    monkeypatch.setenv("KERAS_SENTEMB_HOME", str(tmp_path / "home"))
    path = tmp_path / "weights.bin"
    path.write_bytes(b"abc")
    file_digests.stamped_file_sha256(path)
    (stamp,) = (tmp_path / "home" / "sha256-stamps").iterdir()
    stamp.write_text("{not json")
    assert file_digests.stamped_file_sha256(path) == file_digests.file_sha256(path)
    assert stamp.read_text().startswith("{")
