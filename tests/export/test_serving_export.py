"""The SavedModel: TF Serving layout, strings in, identical vectors wherever it is loaded."""

import json
import os
import textwrap

import keras
import numpy as np
import pytest
import tensorflow as tf

from keras_sentemb.export import export_saved_model
from tests.conftest import FIXTURES, make_tiny_encoder
from tests.fresh_process import run_fresh_python

with open(os.path.join(FIXTURES, "hostile_texts", "texts.json"), encoding="utf-8") as f:
    # Unicode spaces, controls, every script: the graph must tokenise them as `encode` does.
    SOME_HOSTILE_TEXTS = json.load(f)[::97]
TEXTS = ["the cat sat on the mat .", "", "a dog ran fast", "hello world ! " * 20, *SOME_HOSTILE_TEXTS]
# Strings a client may send: invalid UTF-8, NULs, a huge text, special-token text, emoji.
HOSTILE = [b"\xff\xfe\xfd", b"\xc3", b"\x00" * 64, b"x" * 200_000, b"[SEP] [CLS]", "😀".encode() * 3000, b"   ", b""]


@pytest.fixture(scope="module")
def exported(tmp_path_factory):
    encoder = make_tiny_encoder(seed=3)
    base = tmp_path_factory.mktemp("serving") / "tiny"
    folder = export_saved_model(encoder, base, version=7)
    return encoder, base, folder


def test_writes_tf_serving_layout(exported):
    _, base, folder = exported
    assert folder == os.path.join(base, "7")
    assert sorted(os.listdir(base)) == ["7"]  # no temporary folders left behind
    assert os.path.isfile(os.path.join(folder, "saved_model.pb"))
    assert os.path.isdir(os.path.join(folder, "variables"))


def test_fresh_process_with_only_tensorflow_gives_the_same_vectors(exported, tmp_path):
    encoder, _, folder = exported
    script = textwrap.dedent(
        """
        import json, sys
        import numpy as np
        import tensorflow as tf
        import tensorflow_text  # registers the tokenizer's ops
        model = tf.saved_model.load(sys.argv[1])
        serve = model.signatures["serving_default"]
        texts = json.load(open(sys.argv[2]))
        np.save(sys.argv[3], serve(texts=tf.constant(texts))["embedding"].numpy())
        hostile = [bytes.fromhex(h) for h in json.load(open(sys.argv[4]))]
        shapes = [serve(texts=tf.constant(hostile))["embedding"].shape.as_list(),
                  serve(texts=tf.constant([], tf.string))["embedding"].shape.as_list()]
        ours = sorted(m for m in sys.modules if m.startswith("keras_sentemb"))
        print(json.dumps({"shapes": shapes, "keras_sentemb_modules": ours}))
        """
    )
    (tmp_path / "texts.json").write_text(json.dumps(TEXTS))
    (tmp_path / "hostile.json").write_text(json.dumps([h.hex() for h in HOSTILE]))
    report = run_fresh_python(
        script, folder, tmp_path / "texts.json", tmp_path / "out.npy", tmp_path / "hostile.json", cwd=tmp_path
    )
    assert report == {"shapes": [[len(HOSTILE), 16], [0, 16]], "keras_sentemb_modules": []}
    np.testing.assert_allclose(np.load(tmp_path / "out.npy"), encoder.encode(TEXTS), atol=1e-5)


def test_tensorflow_hub_load_and_call(exported):
    import tensorflow_hub as hub

    encoder, _, folder = exported
    module = hub.load(folder)
    np.testing.assert_allclose(module(tf.constant(TEXTS)), encoder.encode(TEXTS), atol=1e-5)
    signature = module.signatures["serving_default"]
    assert list(signature.structured_outputs) == ["embedding"]


def test_hub_keras_layer_inside_a_tf_keras_model(exported):
    import tensorflow_hub as hub
    import tf_keras

    encoder, _, folder = exported
    texts = tf_keras.Input(shape=(), dtype=tf.string)
    model = tf_keras.Model(texts, hub.KerasLayer(folder, trainable=False)(texts))
    np.testing.assert_allclose(model.predict(tf.constant(TEXTS), verbose=0), encoder.encode(TEXTS), atol=1e-5)


def test_tfsm_layer_in_keras_3(exported):
    encoder, _, folder = exported
    layer = keras.layers.TFSMLayer(folder, call_endpoint="serving_default")
    outputs = layer(tf.constant(TEXTS))
    np.testing.assert_allclose(outputs["embedding"], encoder.encode(TEXTS), atol=1e-5)


def test_hostile_strings_give_finite_vectors_in_process(exported):
    import tensorflow_hub as hub

    _, _, folder = exported
    vectors = hub.load(folder)(tf.constant(HOSTILE)).numpy()
    assert vectors.shape == (len(HOSTILE), 16) and np.isfinite(vectors).all()


def test_refuses_to_overwrite_a_version_unless_asked(exported):
    encoder, base, folder = exported
    with pytest.raises(FileExistsError, match="overwrite=True"):
        export_saved_model(encoder, base, version=7)
    before = os.path.getmtime(os.path.join(folder, "saved_model.pb"))
    export_saved_model(encoder, base, version=7, overwrite=True)
    assert os.path.getmtime(os.path.join(folder, "saved_model.pb")) >= before
    assert sorted(os.listdir(base)) == ["7"]


@pytest.mark.parametrize("version", [-1, "1", 1.0, True])
def test_rejects_bad_versions(exported, version, tmp_path):
    encoder, _, _ = exported
    with pytest.raises(ValueError, match="version"):
        export_saved_model(encoder, tmp_path / "m", version=version)


def test_eight_threads_on_one_loaded_model_get_the_serial_vectors(exported):
    from concurrent.futures import ThreadPoolExecutor

    import tensorflow_text  # noqa: F401

    _, _, folder = exported
    serve = tf.saved_model.load(folder).signatures["serving_default"]
    batches = [
        [f"{w} {i}" for w in ("the cat sat", "a dog ran fast", "hello world", "rain")[: 1 + i % 4]] + TEXTS[: i % 3]
        for i in range(32)
    ]
    serial = [serve(texts=tf.constant(batch))["embedding"].numpy() for batch in batches]
    with ThreadPoolExecutor(max_workers=8) as pool:
        threaded = list(pool.map(lambda batch: serve(texts=tf.constant(batch))["embedding"].numpy(), batches))
    for want, got in zip(serial, threaded):
        np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-6)


def _utf8_or_none(text):
    """The UTF-8 bytes `encode` accepts for `text`, or None when it must refuse it."""
    if isinstance(text, bytes):
        try:
            text.decode("utf-8")
            return text
        except UnicodeDecodeError:
            return None
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError:  # a lone surrogate
        return None


def test_arbitrary_strings_never_crash_encode_or_the_signature(exported):
    """Property: for any texts — unicode of every category (lone surrogates included), NUL
    bytes, invalid UTF-8, texts of thousands of characters — `encode` returns finite unit
    vectors or refuses with the documented ValueError naming `texts[i]`, and the exported
    signature (which replaces invalid UTF-8) returns finite vectors equal to `encode`'s."""
    from hypothesis import HealthCheck, given, settings
    from hypothesis import strategies as st

    encoder, _, folder = exported
    serve = tf.saved_model.load(folder).signatures["serving_default"]
    any_text = st.one_of(
        st.text(st.characters(codec=None, exclude_categories=())),  # surrogates too
        st.binary(max_size=48),
        st.text(max_size=8).map(lambda t: "\x00" + t + "\x00"),
        st.text(st.sampled_from("ab é猫😀\x00\t\n"), min_size=3000, max_size=6000),
    )

    @settings(
        max_examples=40,
        deadline=None,
        derandomize=True,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    )
    @given(st.lists(any_text, min_size=1, max_size=4))
    def check(texts):
        utf8 = [_utf8_or_none(t) for t in texts]
        raw = [t if isinstance(t, bytes) else t.encode("utf-8", "surrogatepass") for t in texts]
        served = serve(texts=tf.constant(raw))["embedding"].numpy()
        assert served.shape == (len(texts), 16) and np.isfinite(served).all()
        if any(u is None for u in utf8):
            with pytest.raises(ValueError, match=r"texts\[\d+\]"):
                encoder.encode(texts)
            return
        vectors = encoder.encode(texts)
        assert np.isfinite(vectors).all()
        np.testing.assert_allclose(np.linalg.norm(vectors, axis=1), 1.0, rtol=1e-4)
        np.testing.assert_allclose(served, vectors, atol=1e-5)

    check()
    with pytest.raises(TypeError, match=r"texts\[1\] must be str or bytes, got int"):
        encoder.encode(["fine", 3])


def test_an_export_that_crashes_mid_write_keeps_the_previous_version(exported, monkeypatch):
    from tests.export.test_atomic_writes import Crash, tree_digest

    encoder, base, folder = exported
    before = tree_digest(folder)
    real_save = tf.saved_model.save

    def save_then_crash(obj, export_dir, *args, **kwargs):
        real_save(obj, export_dir, *args, **kwargs)  # the new model is fully written...
        with open(os.path.join(export_dir, "saved_model.pb"), "wb") as f:
            f.write(b"half")  # ...then damaged, and the process fails
        raise Crash("disk full")

    monkeypatch.setattr(tf.saved_model, "save", save_then_crash)
    with pytest.raises(Crash):
        export_saved_model(make_tiny_encoder(seed=6), base, version=7, overwrite=True)
    assert tree_digest(folder) == before
    assert os.listdir(base) == ["7"]  # no staging folder left
    monkeypatch.undo()
    import tensorflow_text  # noqa: F401

    served = tf.saved_model.load(folder)(tf.constant(["the cat sat"])).numpy()
    np.testing.assert_allclose(served, encoder.encode(["the cat sat"]), atol=1e-5)


@pytest.mark.parametrize("unpadded", [True, False], ids=["bert-without-padding", "padded-length-chunks"])
def test_a_request_runs_sorted_by_length_in_chunks_and_comes_back_in_order(unpadded, tmp_path):
    """The signature batches a request as `encode` does: sorted by length, at most `chunk_size`
    texts a chunk; a BERT encoder runs a chunk without padding (`embed_unpadded`), any other
    encoder pads a chunk to its own longest text. Neither changes a vector (padding is masked) and
    the rows come back in request order, for requests of any size (0 included)."""
    encoder = make_tiny_encoder(seed=5)
    assert encoder.supports_unpadded()
    if not unpadded:  # as an encoder over another backbone
        object.__setattr__(encoder, "supports_unpadded", lambda: False)
    texts = ["the cat", "hello world ! " * 6, "", "a dog ran fast on the mat", "rain", "storm storm"] * 3
    folder = export_saved_model(encoder, tmp_path / "chunked", chunk_size=4)
    serve = tf.saved_model.load(folder).signatures["serving_default"]
    served = serve(texts=tf.constant(texts))["embedding"].numpy()
    np.testing.assert_allclose(served, encoder.encode(texts), atol=1e-5)
    assert serve(texts=tf.constant(texts[:1]))["embedding"].shape == (1, encoder.embedding_dim)
    assert serve(texts=tf.constant([], tf.string))["embedding"].shape == (0, encoder.embedding_dim)


def test_a_request_of_one_text_gets_the_vector_that_text_gets_in_any_batch(tmp_path):
    """Requests of one text take their own short path (no sort, chunk loop or ragged bookkeeping):
    their vectors are the rows the same texts get in a batch, and `encode`'s."""
    encoder = make_tiny_encoder(seed=5)
    texts = ["the cat", "hello world ! " * 6, "", "a dog ran fast on the mat", "storm storm"]
    serve = tf.saved_model.load(export_saved_model(encoder, tmp_path / "one")).signatures["serving_default"]
    batched = serve(texts=tf.constant(texts))["embedding"].numpy()
    alone = np.concatenate([serve(texts=tf.constant([text]))["embedding"].numpy() for text in texts])
    np.testing.assert_allclose(alone, batched, atol=1e-5)
    np.testing.assert_allclose(alone, encoder.encode(texts), atol=1e-5)


@pytest.mark.parametrize("chunk_size", [0, -1, 2.5, True])
def test_rejects_a_chunk_size_that_is_not_a_positive_int(chunk_size, tmp_path):
    with pytest.raises(ValueError, match="chunk_size must be a positive int"):
        export_saved_model(make_tiny_encoder(), tmp_path / "bad", chunk_size=chunk_size)
