"""Which SavedModel a bulk job serves: the folder itself, the highest version of a TF
Serving base folder, or (local runners only) a model exported on the fly."""

import pytest

from keras_sentemb.apps.saved_model_folder import exported_version, serving_folder
from tests.conftest import make_tiny_encoder


def version(base, number):
    folder = base / str(number)
    folder.mkdir(parents=True)
    (folder / "saved_model.pb").write_bytes(b"")
    return folder


def test_a_savedmodel_folder_is_itself_and_a_base_folder_gives_its_highest_version(tmp_path):
    for number in (2, 10, 9):
        version(tmp_path / "base", number)
    (tmp_path / "base" / "11").mkdir()  # no saved_model.pb: not a version
    assert exported_version(str(tmp_path / "base")) == str(tmp_path / "base" / "10")
    assert exported_version(str(tmp_path / "base" / "2")) == str(tmp_path / "base" / "2")
    assert exported_version(str(tmp_path / "missing")) is None
    assert exported_version(str(tmp_path / "base" / "11")) is None


def test_a_remote_runner_needs_an_export(tmp_path):
    with pytest.raises(ValueError, match="export it first"):
        serving_folder(str(tmp_path / "model.keras"), runner="DataflowRunner")


def test_a_local_runner_exports_a_keras_file_on_the_fly(tmp_path):
    path = tmp_path / "tiny.keras"
    make_tiny_encoder(seed=2).save(path)
    folder = serving_folder(str(path), runner="DirectRunner")
    assert exported_version(folder) == folder and folder.endswith("1")
