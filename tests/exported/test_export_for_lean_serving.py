"""What `export --backend openvino` and `export --litert --tokenizer outside` write for a server without TensorFlow:
the host tokenizer, the packing and the prompts, so that `ExportedEncoder` of a fresh export gives the vectors of
`encode` on the same runtime — and the committed fixtures of tests/lean/ (tests/fixtures/exported_models/) are what
an export gives today."""

import json
import os

import numpy as np
import pytest

from keras_sentemb import SentenceEncoder
from keras_sentemb.export import export_litert, export_openvino
from keras_sentemb.exported import ExportedEncoder

FIXTURES = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "fixtures")
TEXTS = ["A man is playing a guitar.", "", "Ünïcödé café — 東京 😀", "a long one " * 60]


@pytest.fixture(scope="module")
def qwen3():
    return SentenceEncoder.from_pretrained(os.path.join(FIXTURES, "st_folders", "qwen3_lasttoken_prompts_new"))


def test_an_openvino_folder_holds_its_tokenizer_packing_and_prompts(qwen3, tmp_path):
    folder = export_openvino(qwen3, tmp_path / "qwen3")
    settings = json.loads(open(os.path.join(folder, "keras_sentemb_openvino.json")).read())
    assert os.path.isfile(os.path.join(folder, "tokenizer.json"))
    assert settings["packing"]["padding_side"] == "left" and settings["packing"]["start_ids"] == []
    assert settings["prompts"] == qwen3.prompts and settings["default_prompt_name"] == qwen3.default_prompt_name
    assert settings["pooling"] == qwen3.pooling


@pytest.mark.parametrize("backend", ["openvino", "litert"])
def test_a_fresh_export_gives_the_vectors_of_encode_on_its_runtime(qwen3, tmp_path, backend):
    if backend == "openvino":
        path = export_openvino(qwen3, tmp_path / "qwen3")
    else:
        path = export_litert(qwen3, tmp_path / "qwen3.tflite", tokenizer="outside")
    exported = ExportedEncoder.load(path)
    for prompt_name in sorted(qwen3.prompts):
        np.testing.assert_allclose(
            exported.encode(TEXTS, prompt_name=prompt_name),
            qwen3.encode(TEXTS, backend=backend, prompt_name=prompt_name),
            atol=1e-5,
        )
    np.testing.assert_allclose(exported.encode_query(TEXTS), qwen3.encode_query(TEXTS, backend=backend), atol=1e-5)


def test_the_committed_fixtures_are_what_an_export_gives_today(qwen3, tmp_path):
    with open(os.path.join(FIXTURES, "exported_models", "qwen3_left_padded", "expected.json"), encoding="utf-8") as f:
        reference = json.load(f)
    exported = ExportedEncoder.load(export_openvino(qwen3, tmp_path / "qwen3"))
    np.testing.assert_allclose(
        exported.encode(reference["texts"], prompt=""), np.asarray(reference["vectors"]["none"]), atol=1e-5
    )


def test_a_prompt_named_for_a_file_with_the_tokenizer_outside_is_refused(qwen3, tmp_path):
    with pytest.raises(ValueError, match="with tokenizer='outside' prepend it in the app"):
        export_litert(qwen3, tmp_path / "q.tflite", tokenizer="outside", prompt_name="query")
