"""An exported OpenVINO folder, or a LiteRT file with the tokenizer outside, runs without TensorFlow: `ExportedEncoder`
gives the vectors `SentenceEncoder.encode(backend="openvino" / "litert")` gave for it (tests/fixtures/exported_models/:
four tokenizers, both padding sides), every bad settings value is one error naming `file: key`, and nothing it
imports loads TensorFlow.

These tests run in the suite and, in CI, alone in a venv without TensorFlow (`make test-lean`, `--noconftest`)."""

import json
import os
import shutil
import subprocess
import sys

import numpy as np
import pytest

from keras_sentemb.exported import ExportedEncoder, is_exported_folder

FIXTURES = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "fixtures", "exported_models")
FOLDERS = sorted(name for name in os.listdir(FIXTURES) if os.path.isdir(os.path.join(FIXTURES, name)))
FILES = sorted(name for name in os.listdir(FIXTURES) if name.endswith(".tflite"))


def expected(name):
    path = os.path.join(FIXTURES, f"{name}.expected.json" if name.endswith(".tflite") else f"{name}/expected.json")
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def test_the_fixtures_cover_four_tokenizers_and_two_litert_files():
    assert FOLDERS == ["bert_prompts", "gemma3_sentencepiece", "qwen3_left_padded", "unigram_prompts"]
    assert FILES == ["bert_prompts.tflite", "qwen3_left_padded.tflite"]


@pytest.mark.parametrize("name", FOLDERS + FILES)
def test_vectors_equal_those_of_the_model_that_was_exported(name):
    reference = expected(name)
    encoder = ExportedEncoder.load(os.path.join(FIXTURES, name))
    texts, vectors = reference["texts"], reference["vectors"]
    produced = {"none": encoder.encode(texts, prompt="")}
    produced.update({f"prompt:{p}": encoder.encode(texts, prompt_name=p) for p in sorted(encoder.prompts)})
    produced["query"] = encoder.encode_query(texts)
    produced["document"] = encoder.encode_document(texts)
    if "truncate_dim:4,raw" in vectors:
        produced["truncate_dim:4,raw"] = encoder.encode(texts, prompt="", truncate_dim=4, normalize=False)
    assert sorted(produced) == sorted(vectors)
    for key, values in produced.items():
        np.testing.assert_allclose(values, np.asarray(vectors[key], np.float32), atol=1e-5, err_msg=key)


def test_one_text_gives_one_vector_and_a_batch_does_not_change_it():
    encoder = ExportedEncoder.load(os.path.join(FIXTURES, "qwen3_left_padded"))
    texts = expected("qwen3_left_padded")["texts"]
    one = encoder.encode(texts[0], prompt="")
    assert one.shape == (encoder.embedding_dim,)
    np.testing.assert_allclose(one, encoder.encode(texts, prompt="")[0], atol=1e-5)


def test_a_base_folder_is_read_at_its_newest_version(tmp_path):
    base = tmp_path / "model"
    shutil.copytree(os.path.join(FIXTURES, "bert_prompts", "1"), base / "1")
    shutil.copytree(os.path.join(FIXTURES, "bert_prompts", "1"), base / "3")
    assert is_exported_folder(base) and not is_exported_folder(tmp_path)
    assert ExportedEncoder.load(base).name == ExportedEncoder.load(base / "3").name


def _folder(tmp_path, edit):
    folder = tmp_path / "1"
    shutil.copytree(os.path.join(FIXTURES, "bert_prompts", "1"), folder)
    settings_file = folder / "keras_sentemb_openvino.json"
    settings = json.loads(settings_file.read_text())
    edit(settings, folder)
    settings_file.write_text(json.dumps(settings))
    return folder


HOSTILE_SETTINGS = [
    ("format", lambda s, f: s.update(format="keras-sentemb-openvino/9"), r"format 'keras-sentemb-openvino/9'"),
    ("precision", lambda s, f: s.update(precision="fp8"), r"precision must be one of"),
    ("embedding_dim", lambda s, f: s.update(embedding_dim=-1), r"embedding_dim must be a positive int, got -1"),
    ("an old export", lambda s, f: s.pop("packing"), r"no 'packing' key: .*export it again"),
    ("padding_side", lambda s, f: s["packing"].update(padding_side="up"), r"packing.padding_side must be left or"),
    ("max_length", lambda s, f: s["packing"].update(max_length=2), r"packing.max_length must be an int above the 2"),
    ("start_ids", lambda s, f: s["packing"].update(start_ids=["[CLS]"]), r"packing.start_ids must be a list of ids"),
    ("pad id", lambda s, f: s["packing"].update(pad_token_id=-1), r"packing.pad_token_id must be an int ≥ 0"),
    ("prompts", lambda s, f: s.update(prompts=["query: "]), r"prompts must be an object of strings"),
    ("default prompt", lambda s, f: s.update(default_prompt_name="title"), r"default_prompt_name must be a name"),
    ("tokenizer.json", lambda s, f: (f / "tokenizer.json").write_text("{"), r"tokenizer.json: not a Hugging Face"),
    ("no tokenizer", lambda s, f: (f / "tokenizer.json").unlink(), r"tokenizer.json: no such file"),
    ("no IR", lambda s, f: (f / "openvino_model.xml").unlink(), r"openvino_model.xml is missing"),
    ("FIFO", lambda s, f: ((f / "tokenizer.json").unlink(), os.mkfifo(f / "tokenizer.json")), r"not a regular file"),
]


@pytest.mark.parametrize(
    "edit, message", [row[1:] for row in HOSTILE_SETTINGS], ids=[row[0] for row in HOSTILE_SETTINGS]
)
def test_a_bad_folder_is_one_error_that_names_its_file(tmp_path, edit, message):
    folder = _folder(tmp_path, edit)
    with pytest.raises((ValueError, FileNotFoundError), match=message) as error:
        ExportedEncoder.load(folder)
    assert str(folder) in str(error.value)


def test_another_precision_or_backend_is_refused():
    encoder = ExportedEncoder.load(os.path.join(FIXTURES, "bert_prompts"))
    with pytest.raises(ValueError, match="exported for openvino at float32; got backend='tensorflow'"):
        encoder.inference_runtime("tensorflow", "float32")
    with pytest.raises(ValueError, match="precision='int8'"):
        encoder.inference_runtime(None, "int8")


def test_nothing_of_the_lean_path_imports_tensorflow_keras_or_keras_hub():
    probe = (
        "import sys, keras_sentemb, keras_sentemb.server.serve_command, keras_sentemb.server.http_app;"
        "from keras_sentemb.exported import ExportedEncoder;"
        f"ExportedEncoder.load({os.path.join(FIXTURES, 'qwen3_left_padded')!r}).encode(['a text']);"
        f"ExportedEncoder.load({os.path.join(FIXTURES, 'bert_prompts.tflite')!r}).encode(['a text']);"
        "print(sorted(m for m in ('tensorflow', 'keras', 'keras_hub', 'tensorflow_text') if m in sys.modules))"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"


def test_a_litert_file_is_run_by_the_litert_interpreter():
    encoder = ExportedEncoder.load(os.path.join(FIXTURES, "qwen3_left_padded.tflite"))
    assert (encoder.backend, encoder.precision, encoder.tokenizer.padding_side) == ("litert", "float32", "left")
    with pytest.raises(ValueError, match="exported for litert at float32; got backend='openvino'"):
        encoder.inference_runtime("openvino")


def _damaged(tmp_path, cut):
    path = tmp_path / "model.tflite"
    data = open(os.path.join(FIXTURES, "bert_prompts.tflite"), "rb").read()
    path.write_bytes(cut(data))
    return path


@pytest.mark.parametrize(
    "cut, message",
    [
        (lambda data: data[:100], r"a damaged LiteRT file|no 'keras_sentemb' metadata"),
        (lambda data: b"not a model at all", r"not a LiteRT \(.tflite\) file"),
        (lambda data: b"", r"not a LiteRT \(.tflite\) file \(0 bytes"),
    ],
    ids=["truncated", "not a flat buffer", "empty"],
)
def test_a_bad_litert_file_is_one_error_that_names_it(tmp_path, cut, message):
    path = _damaged(tmp_path, cut)
    with pytest.raises(ValueError, match=message) as error:
        ExportedEncoder.load(path)
    assert str(path) in str(error.value)


def _with_card(tmp_path, edit):
    from keras_sentemb.runtime.litert_metadata import METADATA_NAME, read_metadata, with_metadata

    data = open(os.path.join(FIXTURES, "bert_prompts.tflite"), "rb").read()
    card = json.loads(read_metadata(data, METADATA_NAME))
    edit(card)
    path = tmp_path / "edited.tflite"
    path.write_bytes(with_metadata(data, METADATA_NAME, json.dumps(card).encode()))
    return path


@pytest.mark.parametrize(
    "edit, message",
    [
        (lambda card: card["tokenizer"].update(place="inside"), r"its tokenizer is inside .*--tokenizer outside"),
        (lambda card: card.pop("packing"), r"no 'packing' key: .*export it again"),
        (lambda card: card["packing"].update(end_ids=[-3]), r"packing.end_ids must be a list of ids"),
        (lambda card: card.update(prompts={"query": 7}), r"prompts must be an object of strings"),
    ],
    ids=["tokenizer inside", "an old export", "a negative id", "a prompt that is not text"],
)
def test_a_litert_card_that_cannot_be_served_is_one_error_that_names_the_file(tmp_path, edit, message):
    path = _with_card(tmp_path, edit)
    with pytest.raises(ValueError, match=message) as error:
        ExportedEncoder.load(path)
    assert str(path) in str(error.value)
