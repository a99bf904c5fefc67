"""encode(backend=, precision=): the same vectors on OpenVINO, faster arithmetic that keeps
them close, and errors that say what to do."""

import os
import sys

import keras
import numpy as np
import pytest

from keras_sentemb.runtime import openvino_cpu_capabilities, resolve_runtime
from keras_sentemb.runtime.openvino_runtime import STATIC_LENGTHS, OpenVINORuntime, warm_up_lengths
from tests.conftest import make_tiny_encoder

pytest.importorskip("openvino")

TEXTS = ["the cat sat on the mat .", "", "a dog ran fast", "hello world ! " * 3, "rain", "storm storm storm"]
CALIBRATION = [
    "the cat sat",
    "a dog ran fast on the mat",
    "hello world",
    "rain storm",
    "the oven was hot",
    "bread is fast",
] * 5


@pytest.fixture(scope="module")
def encoder():
    return make_tiny_encoder(seed=11)


def test_openvino_float32_gives_the_tensorflow_vectors(encoder):
    reference = encoder.encode(TEXTS)
    np.testing.assert_allclose(encoder.encode(TEXTS, backend="openvino"), reference, atol=1e-5)


def test_single_texts_run_on_static_shapes_with_the_same_vectors(encoder):
    reference = encoder.encode(TEXTS)
    one_at_a_time = np.stack([encoder.encode([text], backend="openvino") for text in TEXTS])[:, 0]
    np.testing.assert_allclose(one_at_a_time, reference, atol=1e-5)
    runtime = encoder.inference_runtime("openvino", "float32")
    # the tiny model takes 16 tokens: only the static shapes it can take are compiled
    assert runtime.static_lengths == tuple(n for n in STATIC_LENGTHS if n <= 16) == (16,)
    assert runtime.padded_length(1, 5) == 16
    assert runtime.padded_length(4, 5) == 5  # batches keep the bucket ladder
    assert runtime.padded_length(1, 17) == 17


def test_bfloat16_stays_within_bf16_rounding_of_float32(encoder):
    if "BF16" not in openvino_cpu_capabilities()[0]:
        with pytest.raises(ValueError, match="bfloat16 support"):
            encoder.encode(TEXTS, precision="bfloat16")
        return
    vectors = encoder.encode(TEXTS, precision="bfloat16")
    assert vectors.dtype == np.float32 and vectors.shape == (len(TEXTS), encoder.embedding_dim)
    np.testing.assert_allclose(vectors, encoder.encode(TEXTS), atol=3e-2)
    assert encoder.inference_runtime("openvino", "bfloat16").inference_precision == "bf16"


def test_a_cpu_without_bfloat16_is_told_so_before_the_model_is_traced_or_converted(monkeypatch):
    import openvino

    class CoreWithoutBF16:
        def get_property(self, device, name):
            return ["FP32", "INT8"] if name == "OPTIMIZATION_CAPABILITIES" else "f32"

    model = make_tiny_encoder(seed=12)
    monkeypatch.setattr(openvino, "Core", CoreWithoutBF16)
    monkeypatch.setattr(model, "openvino_graph_fn", lambda: pytest.fail("traced before the refusal"))
    with pytest.raises(ValueError, match=r"bfloat16 support .*\['FP32', 'INT8'\]"):
        model.encode(TEXTS, backend="openvino", precision="bfloat16")


@pytest.mark.parametrize("precision", ["bfloat16", "int8"])
def test_at_reduced_precision_a_vector_is_the_same_alone_or_in_any_batch(encoder, precision):
    if precision == "bfloat16" and "BF16" not in openvino_cpu_capabilities()[0]:
        pytest.skip("this CPU has no bfloat16 arithmetic")
    kwargs = {"calibration_texts": TEXTS} if precision == "int8" else {}
    texts = TEXTS + ["a much longer text with many more words than the others have in them"]
    batched = encoder.encode(texts, precision=precision, batch_size=64, **kwargs)
    alone = np.stack([encoder.encode([text], precision=precision)[0] for text in texts])
    runtime = encoder.inference_runtime("openvino", precision)
    if getattr(runtime, "everywhere", False):
        # no int8 dot products on this CPU: every batch runs at float32, padded as float32 pads (single
        # texts on its static shapes): the same vectors to float32 round-off
        np.testing.assert_allclose(alone, batched, atol=1e-6, rtol=0)
        assert runtime.padding_buckets((4, 8, 16)) == ()
    else:
        np.testing.assert_array_equal(alone, batched)  # each text at its own padded length, on one model
        assert runtime.static_lengths == () and runtime.padding_buckets((4, 8, 16)) == (4, 8, 16)
    assert encoder.inference_runtime("openvino", "float32").padding_buckets((4, 8, 16)) == ()


def run_int8_on_any_cpu(monkeypatch):
    """As on a CPU with int8 dot products (VNNI, AMX): the int8 model is built with the runtime and runs."""
    from keras_sentemb.models import embedding_model

    monkeypatch.setattr(embedding_model, "cpu_has_int8_dot_products", lambda: True)


@pytest.mark.parametrize("precision", ["bfloat16", "int8"])
def test_a_reduced_precision_runtime_runs_every_short_rung_once_when_built(precision, monkeypatch):
    """So that a server's first request of each length does not pay for preparing its shape. The model's
    precisions share one conversion, which int8's quantisation leaves as it was (it quantises a copy)."""
    import openvino

    if precision == "bfloat16" and "BF16" not in openvino_cpu_capabilities()[0]:
        pytest.skip("this CPU has no bfloat16 arithmetic")
    run_int8_on_any_cpu(monkeypatch)
    warmed, conversions = [], []
    original, convert = OpenVINORuntime.warm_up, openvino.convert_model
    monkeypatch.setattr(
        OpenVINORuntime, "warm_up", lambda self, lengths: warmed.append(list(lengths)) or original(self, lengths)
    )
    monkeypatch.setattr(openvino, "convert_model", lambda *a, **k: conversions.append(1) or convert(*a, **k))
    fresh = make_tiny_encoder(seed=13)
    fresh.inference_runtime("openvino", precision, calibration_texts=CALIBRATION)
    assert warmed == [warm_up_lengths(fresh.length_buckets)]
    fresh.inference_runtime("openvino", "float32")
    assert len(warmed) == 1  # float32 runs single texts on static shapes compiled with it
    assert len(conversions) == 1
    np.testing.assert_allclose(fresh.encode(TEXTS, backend="openvino"), fresh.encode(TEXTS), atol=1e-5)


def test_int8_needs_calibration_texts_the_first_time(encoder):
    fresh = make_tiny_encoder(seed=12)
    with pytest.raises(ValueError, match="calibration_texts"):
        fresh.encode(TEXTS, precision="int8")
    with pytest.raises(ValueError, match="not one text"):
        fresh.encode(TEXTS, precision="int8", calibration_texts="one text")


def test_int8_calibrated_vectors_point_where_float32_ones_do(encoder):
    vectors = encoder.encode(TEXTS, precision="int8", calibration_texts=CALIBRATION)
    reference = encoder.encode(TEXTS)
    cosines = np.sum(vectors * reference, axis=1)
    assert cosines.min() > 0.9, cosines
    # the calibrated model is kept: later calls need no calibration texts
    np.testing.assert_array_equal(encoder.encode(TEXTS, precision="int8"), vectors)


def test_fit_drops_the_compiled_snapshot_of_the_weights():
    encoder = make_tiny_encoder(seed=13)
    before = encoder.encode(TEXTS, backend="openvino")
    inputs = encoder.tokenizer.pack(encoder.tokenizer.content_ids(np.array(TEXTS[:4], dtype=object)))
    targets = np.ones((4, encoder.embedding_dim), np.float32)
    encoder.compile(optimizer=keras.optimizers.SGD(0.5), loss="mse")
    encoder.fit({k: np.asarray(v) for k, v in inputs.items()}, targets, epochs=2, verbose=0)
    after = encoder.encode(TEXTS, backend="openvino")
    assert np.abs(after - before).max() > 1e-3  # the weights moved, and OpenVINO saw it
    np.testing.assert_allclose(after, encoder.encode(TEXTS), atol=1e-5)


@pytest.mark.parametrize(
    ("backend", "precision", "message"),
    [
        ("tensorflow", "int8", "runs on backend='openvino'"),
        ("tensorflow", "bfloat16", "runs on backend='openvino'"),
        ("onnx", "float32", "backend must be one of"),
        ("openvino", "fp16", "precision must be one of"),
    ],
)
def test_unknown_or_unsupported_choices_are_value_errors(encoder, backend, precision, message):
    with pytest.raises(ValueError, match=message):
        encoder.encode(TEXTS, backend=backend, precision=precision)


def test_a_missing_openvino_says_what_to_install(monkeypatch):
    encoder = make_tiny_encoder(seed=14)
    monkeypatch.setitem(sys.modules, "openvino", None)
    with pytest.raises(ImportError, match=r'pip install "\./keras-sentemb\[openvino\]"'):
        encoder.encode(TEXTS, backend="openvino")


def test_the_default_backend_follows_the_precision():
    assert resolve_runtime(None, "float32") == ("tensorflow", "float32")
    assert resolve_runtime(None, "bfloat16") == ("openvino", "bfloat16")
    assert resolve_runtime("openvino", "float32") == ("openvino", "float32")


@pytest.mark.parametrize("precision", ["float32", "int8"])
def test_export_openvino_loads_back_with_the_same_vectors(encoder, precision, tmp_path):
    from keras_sentemb.export import export_openvino
    from keras_sentemb.models import OpenVINOEncoder

    folder = export_openvino(encoder, tmp_path / "ov", precision=precision, calibration_texts=CALIBRATION, version=3)
    assert folder == str(tmp_path / "ov" / "3")
    loaded = OpenVINOEncoder.load(folder)
    assert loaded.precision == precision and loaded.embedding_dim == encoder.embedding_dim
    runtime = encoder.inference_runtime("openvino", precision, CALIBRATION)
    # an export holds the int8 model itself: encode's float32 fallback (long texts, repeated words,
    # CPUs without int8 dot products) is not part of it
    rows = encoder.tokenize_to_rows([text.encode() for text in TEXTS])
    expected = encoder.predict_rows(rows, 32, False, runtime=getattr(runtime, "int8", runtime))
    expected /= np.linalg.norm(expected, axis=1, keepdims=True)
    np.testing.assert_allclose(loaded.encode(TEXTS), expected, atol=1e-5)
    assert loaded.encode("the cat").shape == (encoder.embedding_dim,)
    with pytest.raises(ValueError, match="export again"):
        loaded.encode_texts(TEXTS, 8, True, False, None, "bfloat16")
    with pytest.raises(FileExistsError):
        export_openvino(encoder, tmp_path / "ov", precision=precision, version=3)


def test_loading_a_folder_that_is_not_an_export_names_the_missing_file(tmp_path):
    from keras_sentemb.models import OpenVINOEncoder

    with pytest.raises(FileNotFoundError, match="openvino_model.xml is missing"):
        OpenVINOEncoder.load(tmp_path)


def test_export_openvino_takes_sentence_encoders_only(tmp_path):
    from keras_sentemb.export import export_openvino

    with pytest.raises(TypeError, match="takes a SentenceEncoder"):
        export_openvino(keras.Sequential([keras.layers.Dense(2)]), tmp_path / "x")


@pytest.mark.parametrize(
    "name",
    [
        "mpnet_mean_normalize_old",
        "roberta_cls_dense_old",
        "xlm_roberta_cls_dense_old",
        "xlm_roberta_mean_normalize_transformers5",
        "bert_unigram_e5_prompts_new",
    ],
)
def test_an_export_keeps_a_non_bert_tokenizer(name, tmp_path):
    """The export records the tokenizer's class, special tokens and vocabulary (MPNet's "<s>"/"</s>"
    WordPiece, RoBERTa's byte-level BPE, XLM-RoBERTa's Unigram behind either pre-tokeniser, multilingual-e5's
    Unigram before a BERT), so the loaded encoder packs texts as the exported one did."""
    import os

    from keras_sentemb import SentenceEncoder
    from keras_sentemb.export import export_openvino
    from keras_sentemb.models import OpenVINOEncoder
    from tests.conftest import FIXTURES

    encoder = SentenceEncoder.from_pretrained(os.path.join(FIXTURES, "st_folders", name))
    loaded = OpenVINOEncoder.load(export_openvino(encoder, tmp_path / "ov", precision="float32"))
    assert type(loaded.tokenizer) is type(encoder.tokenizer)
    assert [row.tolist() for row in loaded.tokenizer.content_id_rows(TEXTS)] == [
        row.tolist() for row in encoder.tokenizer.content_id_rows(TEXTS)
    ]
    np.testing.assert_allclose(loaded.encode(TEXTS), encoder.encode(TEXTS), atol=1e-5)


def test_int8_runs_at_float32_past_128_tokens_on_repeated_words_and_without_int8_dot_products():
    from keras_sentemb.runtime.openvino_runtime import Int8WithFloat32Fallback, repeated_token_rows

    calls = []
    fallback = Int8WithFloat32Fallback(
        type(
            "Int8",
            (),
            {"precision": "int8", "inference_precision": "f32", "__call__": lambda self, *a: calls.append("int8")},
        )(),
        lambda: lambda *a: calls.append("float32"),
    )
    sentence = (np.array([[101, 5, 6, 7, 102, 0]]), np.array([[1, 1, 1, 1, 1, 0]]))
    fallback(*sentence)
    fallback(np.zeros((2, 129), np.int32), np.ones((2, 129), np.int32))  # padded past 128 tokens
    repeated = (np.array([[101] + [9] * 40 + [102]]), np.ones((1, 42)))
    assert repeated_token_rows(*repeated).tolist() == [True]
    fallback(*repeated)
    fallback.everywhere = True  # a CPU without int8 dot products
    fallback(*sentence)
    assert calls == ["int8", "float32", "float32", "float32"]


def test_where_int8_runs_at_float32_everywhere_it_pads_as_float32_does(encoder):
    from keras_sentemb.runtime.openvino_runtime import Int8WithFloat32Fallback

    float32 = encoder.inference_runtime("openvino", "float32")
    int8 = type(
        "Int8", (), {"precision": "int8", "inference_precision": "f32", "padding_buckets": lambda self, ladder: ladder}
    )()
    everywhere = Int8WithFloat32Fallback(int8, lambda: float32, everywhere=True)
    assert everywhere.padding_buckets((8, 16)) == () and everywhere.padded_length(1, 5) == 16  # static shapes
    assert Int8WithFloat32Fallback(int8, lambda: float32).padding_buckets((8, 16)) == (8, 16)


def test_only_a_cpu_with_vnni_or_amx_has_int8_dot_products(tmp_path):
    from keras_sentemb.runtime.openvino_runtime import cpu_has_int8_dot_products

    for flags, expected in (("fma avx2", False), ("avx2 avx512f avx512_vnni", True), ("avx2 amx_int8", True)):
        (tmp_path / "cpuinfo").write_text(f"processor\t: 0\nflags\t\t: {flags}\n")
        assert cpu_has_int8_dot_products(str(tmp_path / "cpuinfo")) is expected
    assert cpu_has_int8_dot_products(str(tmp_path / "missing")) is True


def test_concurrent_first_int8_calls_calibrate_once(monkeypatch):
    import threading
    import time

    from keras_sentemb.models import embedding_model

    run_int8_on_any_cpu(monkeypatch)
    built = []
    real = embedding_model.OpenVINORuntime

    def counting_runtime(*args, **kwargs):
        built.append(args[1])
        time.sleep(0.2)  # a calibration takes seconds: the other threads arrive meanwhile
        return real(*args, **kwargs)

    monkeypatch.setattr(embedding_model, "OpenVINORuntime", counting_runtime)
    fresh = make_tiny_encoder(seed=12)
    results = []
    threads = [
        threading.Thread(
            target=lambda: results.append(fresh.encode(TEXTS, precision="int8", calibration_texts=CALIBRATION))
        )
        for _ in range(8)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert built.count("int8") == 1 and len(results) == 8
    for vectors in results[1:]:
        np.testing.assert_array_equal(vectors, results[0])


def test_without_int8_dot_products_int8_runs_float32_and_calibrates_only_when_its_model_is_asked_for(
    monkeypatch, tmp_path
):
    """Every batch runs at float32 there, so encode does not spend seconds quantising a model it does not run;
    export_openvino (the int8 model itself) calibrates it then, once, on the texts of the first int8 call."""
    from keras_sentemb.export import export_openvino
    from keras_sentemb.models import embedding_model

    monkeypatch.setattr(embedding_model, "cpu_has_int8_dot_products", lambda: False)
    built = []
    real = embedding_model.OpenVINORuntime
    monkeypatch.setattr(embedding_model, "OpenVINORuntime", lambda *a, **k: built.append(a[1]) or real(*a, **k))
    fresh = make_tiny_encoder(seed=14)
    with pytest.warns(UserWarning, match="runs at float32 on this CPU"):
        vectors = fresh.encode(TEXTS, precision="int8", calibration_texts=CALIBRATION)
    np.testing.assert_allclose(vectors, fresh.encode(TEXTS), atol=1e-6)
    runtime = fresh.inference_runtime("openvino", "int8")
    assert built == ["float32"] and runtime.precision == "int8" and runtime.inference_precision == "f32"
    assert "calibrated when first asked for" in repr(runtime)
    with pytest.raises(ValueError, match="calibration_texts"):  # refused at once, not when the model is asked for
        make_tiny_encoder(seed=14).encode(TEXTS, precision="int8")

    folder = export_openvino(fresh, tmp_path / "ov", precision="int8")
    assert built == ["float32", "int8"] and runtime.int8.precision == "int8"
    export_openvino(fresh, tmp_path / "ov-again", precision="int8")
    assert built == ["float32", "int8"]  # calibrated once
    assert any(name.endswith(".xml") for name in os.listdir(folder))
