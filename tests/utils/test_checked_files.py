"""Readers of our own files name the file and the place for every way a file can be wrong:
bad JSON (line and column), nesting too deep, oversized files, garbage or truncated arrays,
archives that are not zips, and missing keys."""

import os
import zipfile

import numpy as np
import pytest

from keras_sentemb.utils.checked_files import (
    check_keras_file,
    load_npy,
    npz_array,
    open_npz,
    open_regular_file,
    parse_json,
    read_json,
    read_json_if_present,
    read_json_object,
    regular_file_present,
    require_keys,
)


def test_bad_json_names_path_line_and_column(tmp_path):
    path = tmp_path / "meta.json"
    path.write_text('{\n  "bits": 256,\n  "lines": ,\n}', encoding="utf-8")
    with pytest.raises(ValueError, match=r"meta.json:3:12: not valid JSON \(Expecting value\)"):
        read_json(path)


def test_a_bom_is_not_part_of_the_document_and_bad_utf8_is_named(tmp_path):
    path = tmp_path / "a.json"
    path.write_bytes(b'\xef\xbb\xbf{"a": 1}')
    assert read_json(path) == {"a": 1}
    path.write_bytes(b'{"a": "\xff"}')
    with pytest.raises(ValueError, match=r"a.json: not valid UTF-8 \(invalid start byte at byte 7\)"):
        read_json(path)


def test_nesting_too_deep_and_oversized_files_are_refused_without_a_crash(tmp_path):
    path = tmp_path / "deep.json"
    path.write_text("[" * 200_000 + "]" * 200_000)
    with pytest.raises(ValueError, match="deep.json: JSON nested too deeply"):
        read_json(path)
    with pytest.raises(ValueError, match=r"deep.json: 400000 bytes is more than the 1000"):
        read_json(path, max_bytes=1000)
    with pytest.raises(FileNotFoundError, match="nope.json: no such file"):
        read_json(tmp_path / "nope.json")
    with pytest.raises(ValueError, match=r"https://x/index.json:1:1"):
        parse_json(b"<html>", "https://x/index.json")


def test_missing_keys_are_named_instead_of_a_bare_key_error():
    assert require_keys({"version": 1}, ["version"], "config.json") == {"version": 1}
    with pytest.raises(ValueError, match=r"config.json: missing key\(s\) \['version'\]"):
        require_keys({"name": "x"}, ["version"], "config.json")
    with pytest.raises(ValueError, match="config.json: expected a JSON object, got list"):
        require_keys([1], ["version"], "config.json")


def test_a_garbage_npy_is_not_called_pickled_data(tmp_path):
    path = tmp_path / "embeddings.npy"
    path.write_bytes(b"garbage that is no array at all")
    with pytest.raises(ValueError, match="embeddings.npy: not a .npy array file"):
        load_npy(path)
    np.save(path, np.ones((100, 4), np.float32))
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 2])  # truncated
    with pytest.raises(ValueError, match="embeddings.npy: damaged .npy array file"):
        load_npy(path)
    with pytest.raises(ValueError, match="embeddings.npy: damaged .npy array file"):
        load_npy(path, mmap_mode="r")
    np.save(path, np.array([{"a": 1}], dtype=object))
    with pytest.raises(ValueError, match="embeddings.npy: damaged .npy array file.*pickle"):
        load_npy(path)


def test_npz_archives_that_are_not_zips_or_lack_an_array_are_named(tmp_path):
    path = tmp_path / "weights.npz"
    path.write_bytes(b"PK not really")
    with pytest.raises(ValueError, match="weights.npz: not a .npz file"):
        open_npz(path)
    np.savez(path, w0=np.zeros(3))
    with open_npz(path) as arrays:
        assert npz_array(arrays, "w0", str(path)).shape == (3,)
        with pytest.raises(ValueError, match="weights.npz: the archive holds no array 'w1'"):
            npz_array(arrays, "w1", str(path))


def test_a_keras_file_that_is_not_a_zip_is_not_reported_as_missing(tmp_path):
    path = tmp_path / "model.keras"
    path.write_text("not a zip")
    with pytest.raises(ValueError, match="model.keras: not a .keras file"):
        check_keras_file(path)
    with pytest.raises(FileNotFoundError, match="nope.keras: no such .keras file"):
        check_keras_file(tmp_path / "nope.keras")
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("config.json", "{}")
    assert check_keras_file(path) == str(path)


def test_only_regular_files_are_opened_and_a_fifo_is_never_waited_on(tmp_path):
    fifo = tmp_path / "config.json"
    os.mkfifo(fifo)
    with pytest.raises(ValueError, match=r"config.json: a FIFO, not a regular file"):
        read_json(fifo)  # returns at once: nobody writes to the FIFO
    device = tmp_path / "tokenizer.json"
    device.symlink_to("/dev/zero")
    with pytest.raises(ValueError, match=r"tokenizer.json: a character device \(a symlink to /dev/zero\)"):
        open_regular_file(device)
    with pytest.raises(ValueError, match="a folder, not a regular file"):
        read_json(tmp_path)
    dangling = tmp_path / "vocab.txt"
    dangling.symlink_to(tmp_path / "gone.txt")
    with pytest.raises(ValueError, match=r"vocab.txt: a symlink to the missing .*gone.txt"):
        regular_file_present(dangling)
    assert regular_file_present(tmp_path / "absent.json") is False
    (tmp_path / "real.json").write_text('{"a": 1}')
    assert regular_file_present(tmp_path / "real.json") is True
    assert read_json_if_present(tmp_path, "absent.json") == {}


def test_a_config_must_be_an_object(tmp_path):
    (tmp_path / "config.json").write_text("[1, 2]")
    with pytest.raises(ValueError, match="config.json: expected a JSON object, got list"):
        read_json_object(tmp_path / "config.json")
    with pytest.raises(ValueError, match="config.json: expected a JSON object, got list"):
        read_json_if_present(tmp_path, "config.json")
