"""export_litert: one `.tflite` file, raw strings in (TF Text's LiteRT kernels inside), the model's vectors
out, run by the LiteRT interpreter (`ai-edge-litert`) as an app runs it."""

import json
import os
import subprocess
import sys

import keras
import numpy as np
import pytest
import tensorflow as tf

from keras_sentemb import HashedEncoder, SemanticHashing, SentenceEncoder, SentenceTokenizer, StaticEncoder
from keras_sentemb.apps.cli import main
from keras_sentemb.backbones import MPNetBackbone
from keras_sentemb.export import export_litert, read_litert_metadata
from keras_sentemb.export.litert_export import CONVERTER_NOISE, check_custom_ops
from keras_sentemb.runtime.litert_runtime import LiteRTEncoder
from tests.conftest import FIXTURES, TINY_VOCAB, make_tiny_backbone, make_tiny_encoder, packed_tokens

pytest.importorskip("ai_edge_litert")

TEXTS = [
    "The cat sat on the mat.",
    "a dog ran fast!",
    "",
    "   ",
    "Straße CAFÉ, hello world?",
    "the cat " * 40,  # past max_length: truncated as encode truncates
    "東京 rain\u00a0storm \u200bplaying",
    "unknown wordz here",
]
# Bad input: empty strings, a 1 MB string, invalid UTF-8 bytes, a NUL.
HOSTILE_BYTES = [b"", ("the cat sat " * 90_000).encode(), b"\xff\xfe the \xc3\x28 cat", b"a\x00cat", b"\xed\xa0\x80"]


def tiny_mpnet_encoder():
    keras.utils.set_random_seed(5)
    vocabulary = ["<s>", "<pad>", "</s>", "<unk>"] + TINY_VOCAB[5:] + ["<mask>"]
    tokenizer = SentenceTokenizer(
        vocabulary,
        max_length=16,
        cls_token="<s>",
        sep_token="</s>",
        pad_token="<pad>",
        mask_token="<mask>",
        oov_token="<unk>",
    )
    backbone = MPNetBackbone(
        vocabulary_size=len(vocabulary),
        num_layers=2,
        num_heads=2,
        hidden_dim=8,
        intermediate_dim=16,
        max_sequence_length=24,
    )
    return SentenceEncoder(backbone, tokenizer=tokenizer, normalize=True)


def tiny_static(**kwargs):
    keras.utils.set_random_seed(7)
    return StaticEncoder(SentenceTokenizer(TINY_VOCAB, max_length=16), dim=8, projection_dim=12, **kwargs)


@pytest.mark.parametrize(
    "make_model",
    [
        lambda: make_tiny_encoder(normalize=True),
        lambda: make_tiny_encoder(pooling="max", exclude_special_tokens=True),
        lambda: SentenceEncoder(
            make_tiny_backbone(),
            tokenizer=SentenceTokenizer(TINY_VOCAB, lowercase=False, strip_accents=False, max_length=16),
        ),
        tiny_mpnet_encoder,
        tiny_static,
    ],
    ids=["bert-mean", "bert-max", "bert-cased", "mpnet", "static"],
)
def test_a_float32_file_gives_the_vectors_of_encode(make_model, tmp_path):
    model = make_model()
    path = export_litert(model, tmp_path / "model.tflite")
    litert = LiteRTEncoder(path)
    np.testing.assert_allclose(litert.encode(TEXTS), model.encode(TEXTS), atol=1e-4)
    # and one text at a time (a phone's single request): the same vectors
    for text in TEXTS[:3]:
        np.testing.assert_allclose(litert.encode([text])[0], model.encode([text])[0], atol=1e-4)


def test_bad_input_gives_unit_vectors_not_a_crash(tmp_path):
    model = make_tiny_encoder()
    litert = LiteRTEncoder(export_litert(model, tmp_path / "model.tflite"))
    vectors = litert.encode(HOSTILE_BYTES)
    assert vectors.shape == (len(HOSTILE_BYTES), model.embedding_dim)
    np.testing.assert_allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    # empty, the 1 MB text (truncated) and NUL (deleted) read as encode reads them (encode refuses invalid UTF-8)
    same = [0, 1, 3]
    np.testing.assert_allclose(vectors[same], model.encode([HOSTILE_BYTES[i] for i in same]), atol=1e-4)
    assert litert.encode([]).shape == (0, model.embedding_dim)


def wider_encoder():
    """A BERT whose matrices are big enough (64 × 64 and up) for the converter to quantise."""
    backbone = make_tiny_backbone(seed=11, hidden_dim=64, intermediate_dim=128)
    return SentenceEncoder(backbone, tokenizer=SentenceTokenizer(TINY_VOCAB, max_length=16), normalize=True)


def test_float16_and_int8_files_are_smaller_and_stay_close(tmp_path):
    model = wider_encoder()
    reference = model.encode(TEXTS)
    sizes = {}
    for precision in ("float32", "float16", "int8"):
        path = export_litert(model, tmp_path / f"{precision}.tflite", precision=precision)
        # the weights' share of the file: the same model with its tokenizer outside
        sizes[precision] = os.path.getsize(
            export_litert(model, tmp_path / f"{precision}-ids.tflite", precision=precision, tokenizer="outside")
        )
        vectors = LiteRTEncoder(path).encode(TEXTS)
        cosines = np.sum(vectors * reference, axis=1)
        assert cosines.min() > {"float32": 0.99999, "float16": 0.999, "int8": 0.95}[precision], precision
        assert read_litert_metadata(path)["precision"] == precision
    assert sizes["int8"] < sizes["float16"] < sizes["float32"]


def test_the_static_tier_at_int8_keeps_its_table_in_four_bits(tmp_path):
    keras.utils.set_random_seed(7)
    model = StaticEncoder(SentenceTokenizer(TINY_VOCAB, max_length=16), dim=64, projection_dim=256)
    float32 = export_litert(model, tmp_path / "f.tflite", tokenizer="outside")
    int8 = export_litert(model, tmp_path / "i.tflite", precision="int8")
    vectors = LiteRTEncoder(int8).encode(TEXTS[:3] + TEXTS[4:])
    reference = model.encode(TEXTS[:3] + TEXTS[4:])
    assert np.sum(vectors * reference, axis=1)[[0, 1, 3, 4]].min() > 0.95
    assert "4-bit" in read_litert_metadata(int8)["quantization"]
    int8_ids = export_litert(model, tmp_path / "i-ids.tflite", precision="int8", tokenizer="outside")
    assert os.path.getsize(int8_ids) < os.path.getsize(float32)


def test_a_hashed_encoder_file_also_returns_its_codes(tmp_path):
    keras.utils.set_random_seed(2)
    hashed = HashedEncoder(make_tiny_encoder(), SemanticHashing(64))
    path = export_litert(hashed, tmp_path / "hashed.tflite")
    vectors, codes = LiteRTEncoder(path).encode_with_codes(TEXTS)
    np.testing.assert_allclose(vectors, hashed.encode(TEXTS), atol=1e-4)
    np.testing.assert_array_equal(codes, hashed.hash(TEXTS))
    assert [output["name"] for output in read_litert_metadata(path)["outputs"]] == ["embedding", "codes"]


def test_a_prompt_is_tokenised_into_the_file(tmp_path):
    model = make_tiny_encoder(prompts={"query": "the cat "}, default_prompt_name="query")
    path = export_litert(model, tmp_path / "q.tflite")
    np.testing.assert_allclose(LiteRTEncoder(path).encode(TEXTS[:3]), model.encode(TEXTS[:3]), atol=1e-4)
    assert read_litert_metadata(path)["prompt"] == "the cat "


def test_the_metadata_tells_an_app_what_goes_in_and_out(tmp_path):
    path = export_litert(make_tiny_encoder(), tmp_path / "model.tflite")
    card = read_litert_metadata(path)
    assert card["inputs"] == [{"name": "texts", "dtype": "string", "shape": [-1]}]
    assert card["outputs"] == [{"name": "embedding", "dtype": "float32", "shape": [-1, 16], "normalized": "l2"}]
    assert card["tokenizer"]["custom_ops"] == [
        "FastBertNormalize",
        "FastWordpieceTokenizeWithOffsets",
        "RaggedTensorToTensor",
    ]
    assert card["tokenizer"]["max_length"] == 16


def test_a_tokenizer_without_litert_kernels_is_refused_inside_and_exported_outside(tmp_path):
    model = SentenceEncoder.from_pretrained(os.path.join(FIXTURES, "st_folders", "xlm_roberta_cls_dense_old"))
    with pytest.raises(ValueError, match="UnigramTokenizer.*tokenizer='outside'"):
        export_litert(model, tmp_path / "inside.tflite")
    path = export_litert(model, tmp_path / "outside.tflite", tokenizer="outside")
    texts = ["Hello world.", "Ça va?"]
    inputs = packed_tokens(model.tokenizer, texts)
    vectors = LiteRTEncoder(path).encode_ids(inputs["token_ids"], inputs["padding_mask"])
    np.testing.assert_allclose(vectors, model.encode(texts), atol=1e-4)
    assert read_litert_metadata(path)["tokenizer"]["place"] == "outside"


def test_arguments_are_checked_before_anything_is_written(tmp_path):
    model = make_tiny_encoder()
    with pytest.raises(ValueError, match="precision must be one of"):
        export_litert(model, tmp_path / "m.tflite", precision="bfloat16")
    with pytest.raises(ValueError, match="calibration_texts is for precision='int8'"):
        export_litert(model, tmp_path / "m.tflite", calibration_texts=["a cat"])
    (tmp_path / "m.tflite").write_bytes(b"keep me")
    with pytest.raises(FileExistsError, match="overwrite=True"):
        export_litert(model, tmp_path / "m.tflite")
    assert (tmp_path / "m.tflite").read_bytes() == b"keep me"
    assert os.listdir(tmp_path) == ["m.tflite"]


FRESH_PROCESS = """
import ctypes, glob, importlib.util, json, os, sys
import numpy as np
from ai_edge_litert import interpreter

def installed(package):
    spec = importlib.util.find_spec(package)
    return os.path.dirname(spec.origin)

# TF Text's LiteRT kernels, loaded by path: the library they link, not TensorFlow's Python package
ctypes.CDLL(glob.glob(os.path.join(installed("tensorflow"), "libtensorflow_framework.so*"))[0], ctypes.RTLD_GLOBAL)
so = glob.glob(os.path.join(installed("tensorflow_text"), "core", "pybinds", "tflite_registrar*.so"))[0]
spec = importlib.util.spec_from_file_location("tflite_registrar", so)
registrar = importlib.util.module_from_spec(spec)
spec.loader.exec_module(registrar)
model = interpreter.InterpreterWithCustomOps(
    model_path=sys.argv[1],
    custom_op_registerers=[registrar.AddFastBertNormalize, registrar.AddFastWordpieceTokenize, registrar.AddRaggedTensorToTensor],
)
runner = model.get_signature_runner("serving_default")
texts = json.loads(sys.argv[2])
vectors = runner(texts=np.array([t.encode() for t in texts], dtype=object))["embedding"]
print(json.dumps({"tensorflow_imported": "tensorflow" in sys.modules, "vectors": vectors.tolist()}))
"""


def test_a_fresh_process_with_only_the_interpreter_and_tf_text_kernels_gives_the_same_vectors(tmp_path):
    model = make_tiny_encoder(normalize=True)
    path = export_litert(model, tmp_path / "model.tflite", precision="float32")
    run = subprocess.run(
        [sys.executable, "-c", FRESH_PROCESS, path, json.dumps(TEXTS)], capture_output=True, text=True, timeout=120
    )
    assert run.returncode == 0, run.stderr[-2000:]
    result = json.loads(run.stdout.strip().splitlines()[-1])
    assert result["tensorflow_imported"] is False
    np.testing.assert_allclose(np.array(result["vectors"]), model.encode(TEXTS), atol=1e-4)


def test_the_cli_writes_a_litert_file_and_nothing_to_standard_error(tmp_path, capfd):
    """(TensorFlow Lite's converter notes on every conversion — absl's deprecation note for frozen functions — are
    not shown: they read like problems and are none.)"""
    model_file = tmp_path / "tiny.keras"
    make_tiny_encoder().save(model_file)
    capfd.readouterr()
    status = main(
        ["export", str(tmp_path / "m.tflite"), "--litert", "--precision", "float16", "--model", str(model_file)]
    )
    assert status == 0
    out, err = capfd.readouterr()
    assert "LiteRT, float16" in out and "texts -> embedding" in out and err == ""
    assert read_litert_metadata(tmp_path / "m.tflite")["precision"] == "float16"


def test_a_calibrated_int8_export_writes_nothing_to_standard_error(tmp_path, capfd):
    """The quantiser's input-statistics warning and its settings line are not shown either."""
    model_file = tmp_path / "tiny.keras"
    make_tiny_encoder().save(model_file)
    calibration = tmp_path / "calibration.txt"
    calibration.write_text("a cat sits\na dog runs\n", encoding="utf-8")
    capfd.readouterr()
    options = ["--litert", "--precision", "int8", "--calibration", str(calibration), "--model", str(model_file)]
    assert main(["export", str(tmp_path / "int8.tflite"), *options]) == 0
    assert capfd.readouterr().err == ""


def test_the_cli_refuses_float16_without_litert(tmp_path, capsys):
    status = main(["export", str(tmp_path / "m"), "--precision", "float16"])
    assert status == 2
    assert "--precision float16 is for --litert" in capsys.readouterr().err


def test_the_graph_uses_no_tf_op_beyond_tf_text_kernels(tmp_path):
    """What a strided slice with a new axis ([:, None]) does to a conversion: a custom op no runtime has."""
    flat_buffer = tf.lite.TFLiteConverter.from_concrete_functions(
        [tf.function(lambda x: x[:, :, None] * 2.0).get_concrete_function(tf.TensorSpec([None, None], tf.float32))]
    )
    flat_buffer.allow_custom_ops = True
    with pytest.raises(ValueError, match="StridedSlice"):
        check_custom_ops(flat_buffer.convert(), ("FastBertNormalize",))


def test_the_converters_own_log_is_filtered_and_every_other_line_kept():
    """TensorFlow 2.20's converter writes Grappler's and its own notes on every conversion whatever
    TF_CPP_MIN_LOG_LEVEL says: they are dropped; an error line of the same files is kept."""
    from keras_sentemb.utils.start_up_noise import without_start_up_noise

    written = (
        b"I0000 00:00:1796200406.581331   30554 devices.cc:67] Number of eligible GPUs (core count >= 8, "
        b"compute capability >= 0.0): 0\n"
        b"I0000 00:00:1796200406.581597   30554 single_machine.cc:376] Starting new session\n"
        b"W0000 00:00:1796200407.994150   30554 tf_tfl_flatbuffer_helpers.cc:364] Ignored output_format.\n"
        b"W0000 00:00:1796200407.994223   30554 tf_tfl_flatbuffer_helpers.cc:367] Ignored drop_control_dependency.\n"
        b"E0000 00:00:1796200407.994223   30554 single_machine.cc:99] Failed to start a session\n"
    )
    assert without_start_up_noise(written, CONVERTER_NOISE) == (
        b"E0000 00:00:1796200407.994223   30554 single_machine.cc:99] Failed to start a session\n"
    )
