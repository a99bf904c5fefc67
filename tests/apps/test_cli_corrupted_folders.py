"""A model folder from the internet cannot crash, hang or exhaust `keras-sentemb encode`: each
corruption of `tests/pretrained/corrupted_folders.py` ends in exit status 2 with one `error:` line
that names the problem, without building the model (the dimensions are checked against the
checkpoint first), and the valid folder still encodes."""

import re
import signal

import numpy as np
import pytest

from keras_sentemb import SentenceEncoder
from keras_sentemb.apps.cli import main
from tests.pretrained.corrupted_folders import BASE_FOLDER, CORRUPTIONS, copy_base

SECONDS = 30  # a hang (a FIFO waited on, a million layers built) fails the test instead of the suite


@pytest.fixture()
def no_hang():
    def stop(signum, frame):
        raise TimeoutError(f"still running after {SECONDS} s")

    previous = signal.signal(signal.SIGALRM, stop)
    signal.alarm(SECONDS)
    yield
    signal.alarm(0)
    signal.signal(signal.SIGALRM, previous)


@pytest.fixture()
def text_file(tmp_path):
    path = tmp_path / "in.txt"
    path.write_text("A cat sits on the mat.\n", encoding="utf-8")
    return str(path)


@pytest.mark.parametrize(("name", "corrupt", "message"), CORRUPTIONS, ids=[row[0] for row in CORRUPTIONS])
def test_a_corrupted_folder_is_one_error_line_and_exit_2(name, corrupt, message, tmp_path, text_file, capsys, no_hang):
    folder = copy_base(str(tmp_path / "model"))
    corrupt(folder)
    output = tmp_path / "out.npy"
    status = main(["encode", text_file, "-o", str(output), "--model", folder])
    err = capsys.readouterr().err.strip().splitlines()
    assert status == 2, err
    assert len(err) == 1 and err[0].startswith("keras-sentemb encode: error: "), err
    assert re.search(message, err[0]), err[0]
    assert not output.exists()


def test_a_corrupted_folder_never_builds_the_model(tmp_path, monkeypatch):
    """The dimensions are refused before any layer exists: the builder is never called."""
    import dataclasses

    from keras_sentemb.families import registry

    built = []
    family = registry.MODEL_TYPES["bert"]
    monkeypatch.setitem(
        registry.MODEL_TYPES, "bert", dataclasses.replace(family, build=lambda *a: built.append(a) or family.build(*a))
    )
    folder = copy_base(str(tmp_path / "model"))
    corrupt = {name: corrupt for name, corrupt, _ in CORRUPTIONS}["config vocab_size 10^7"]
    corrupt(folder)
    with pytest.raises(ValueError, match="vocab_size=10000000 disagrees"):
        SentenceEncoder.from_pretrained(folder)
    assert built == []


def test_the_valid_folder_still_encodes(tmp_path, text_file):
    output = tmp_path / "out.npy"
    assert main(["encode", text_file, "-o", str(output), "--model", BASE_FOLDER]) == 0
    assert np.load(output).shape == (1, 16)
