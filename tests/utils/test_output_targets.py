"""The one rule for writing over a folder or a file: only what keras-sentemb wrote, of the same kind, is
replaced; `/`, the home folder, the current directory, an input and every folder holding one are never
replaced; links, files where folders go (and the reverse) are refused; each refusal names the path and
what it holds."""

import os

import pytest

from keras_sentemb.utils.atomic_files import atomic_directory
from keras_sentemb.utils.output_targets import (
    MARKER_FILE,
    check_output_file,
    check_output_folder,
    check_writable_folder,
    folder_kind,
    mark_folder,
    replaced_folder,
)


def write(path, text="mine"):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)
    return path


def test_a_new_folder_is_published_with_its_marker(tmp_path):
    with replaced_folder(tmp_path / "out", "index") as staging:
        write(os.path.join(staging, "meta.json"), "{}")
    assert sorted(os.listdir(tmp_path / "out")) == [MARKER_FILE, "meta.json"]
    assert folder_kind(tmp_path / "out") == "index"


def test_a_folder_of_the_same_kind_is_replaced_only_with_overwrite(tmp_path):
    target = tmp_path / "out"
    with replaced_folder(target, "index") as staging:
        write(os.path.join(staging, "old.txt"))
    with pytest.raises(FileExistsError, match="pass overwrite=True"):
        check_output_folder(target, "index")
    with replaced_folder(target, "index", overwrite=True) as staging:
        write(os.path.join(staging, "new.txt"))
    assert sorted(os.listdir(target)) == [MARKER_FILE, "new.txt"]


def test_a_folder_without_the_marker_or_of_another_kind_is_never_replaced(tmp_path):
    mine = tmp_path / "mine"
    write(str(mine / "notes.md"))
    with pytest.raises(ValueError, match=r"mine: holds 1 entry \(notes\.md\) but no keras-sentemb marker"):
        check_output_folder(mine, "index", overwrite=True)
    ours = tmp_path / "ours"
    ours.mkdir()
    mark_folder(ours, "saved-model")
    with pytest.raises(ValueError, match="is a keras-sentemb saved-model folder, not an index folder"):
        check_output_folder(ours, "index", overwrite=True)
    (ours / MARKER_FILE).write_text("not json")
    assert folder_kind(ours) is None


@pytest.mark.parametrize("place", ["cwd", "cwd's parent", "home", "root", "input", "input's folder", "above an input"])
def test_the_places_never_replaced(place, tmp_path, monkeypatch):
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    work = tmp_path / "work" / "deep"
    monkeypatch.chdir(write(str(work / "a.txt")) and work)
    corpus = write(str(tmp_path / "data" / "sub" / "corpus.txt"))
    write(str(tmp_path / "home" / "x"))
    target, what = {
        "cwd": (".", "is the current directory"),
        "cwd's parent": (str(tmp_path / "work"), "holds the current directory"),
        "home": (str(tmp_path / "home"), "is your home folder"),
        "root": ("/", "is the root folder"),
        "input": (corpus, "is the input"),
        "input's folder": (str(tmp_path / "data" / "sub"), "holds the input"),
        "above an input": (str(tmp_path / "data"), "holds the input"),
    }[place]
    mark_folder(os.path.dirname(corpus), "index")  # even a folder of ours: the input lies in it
    with pytest.raises(ValueError, match=what):
        if place == "input":
            check_output_file(target, ".npy", overwrite=True, inputs=[corpus])
        else:
            check_output_folder(target, "index", overwrite=True, inputs=[corpus])


def test_links_and_files_where_folders_go_are_refused(tmp_path):
    real = tmp_path / "real"
    real.mkdir()
    mark_folder(real, "index")
    os.symlink(real, tmp_path / "link")
    with pytest.raises(ValueError, match="is a symbolic link"):
        check_output_folder(tmp_path / "link", "index", overwrite=True)
    plain = write(str(tmp_path / "plain.txt"))
    with pytest.raises(ValueError, match="is a file, and this writes a folder there"):
        check_output_folder(plain, "index", overwrite=True)
    with pytest.raises(ValueError, match=r"is a folder \(holds"):
        check_output_file(real, ".npy", overwrite=True)


def test_a_file_is_replaced_only_when_its_kind_says_it_is_ours(tmp_path):
    path = write(str(tmp_path / "out.npy"), "not an array")
    with pytest.raises(FileExistsError):
        check_output_file(path, ".npy")
    with pytest.raises(ValueError, match=r"exists and is not a \.npy file keras-sentemb wrote \(12 bytes\)"):
        check_output_file(path, ".npy", overwrite=True, is_ours=lambda p: open(p, "rb").read(6) == b"\x93NUMPY")
    assert check_output_file(path, ".npy", overwrite=True) == str(path)


def test_a_folder_that_takes_no_file_is_refused_before_any_work(tmp_path):
    with pytest.raises(PermissionError, match=r"/proc/x\.tflite: cannot write in /proc"):
        check_writable_folder("/proc", "/proc/x.tflite")
    with pytest.raises(FileNotFoundError, match="does not exist"):
        check_output_file(tmp_path / "no" / "x.npy", ".npy")
    assert os.listdir(tmp_path) == []  # the probe file is gone


def test_a_folder_is_never_swapped_with_a_file_and_leaves_no_staging(tmp_path):
    """atomic_directory itself: a file at the target is not exchanged for a folder (it once was, and the
    file was left behind as `.name.tmp-PID-…`)."""
    plain = write(str(tmp_path / "plain.txt"))
    with pytest.raises(ValueError, match="is not a folder"):
        with atomic_directory(plain, overwrite=True):
            pass
    assert sorted(os.listdir(tmp_path)) == ["plain.txt"]


def test_a_folder_output_under_a_place_that_takes_no_file_is_refused_at_once():
    with pytest.raises(PermissionError, match=r"/proc/new/1: cannot write in /proc"):
        check_output_folder("/proc/new/1", "saved-model")
