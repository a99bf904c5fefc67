"""HashedEncoder: codes from texts, a distilled head on a frozen encoder, save/load, export
with `hash` and `search` signatures answering like the Python API in a fresh process."""

import json
import os
import subprocess
import sys
import textwrap

import keras
import numpy as np
import pytest

from keras_sentemb.export import export_saved_model
from keras_sentemb.layers import SemanticHashing
from keras_sentemb.models import HashedEncoder
from keras_sentemb.retrieval import BinaryIndex
from keras_sentemb.training import distill_hashed_encoder
from tests.conftest import make_tiny_encoder, packed_tokens
from tests.layer_test_case import run_model_test

TEXTS = [
    "the cat sat on the mat",
    "a dog ran fast",
    "hello world",
    "rain and storm",
    "the oven bread",
    "a cat ran",
    "the dog sat",
    "hello cat",
    "",
]


@pytest.fixture(scope="module")
def hashed():
    encoder = make_tiny_encoder(seed=4)
    embeddings = encoder.encode(TEXTS * 8)
    return distill_hashed_encoder(encoder, embeddings, bits=64, epochs=3, batch_size=24, verbose=0)


def test_hash_of_texts_is_the_packed_code_of_their_unit_embeddings(hashed):
    codes = hashed.hash(TEXTS)
    assert codes.shape == (len(TEXTS), 8) and codes.dtype == np.uint8
    np.testing.assert_array_equal(codes, hashed.hash_embeddings(hashed.encode(TEXTS)))
    bits = hashed.hash(TEXTS, packed=False)
    np.testing.assert_array_equal(np.packbits(bits, axis=1), codes)
    assert hashed.hash("hello world").shape == (8,)


def test_distill_trains_only_the_head_and_decays_the_temperature(hashed):
    assert hashed.bits == 64
    temperatures = hashed.history.history["temperature"]  # τ of each epoch's last step
    assert temperatures == sorted(temperatures, reverse=True)
    assert temperatures[-1] == pytest.approx(0.3 ** (8 / 9), rel=1e-5)  # step 8 of 9
    fresh = make_tiny_encoder(seed=4)
    for got, want in zip(hashed.encoder.weights, fresh.weights):
        np.testing.assert_array_equal(got.numpy(), want.numpy())


def test_call_on_token_inputs_returns_relaxed_codes_for_joint_training(hashed):
    tokenizer = hashed.tokenizer
    inputs = tokenizer.pack(tokenizer.content_ids(np.array(TEXTS[:3], dtype=object)))
    codes = keras.ops.convert_to_numpy(hashed(inputs))  # straight-through: hard in the forward pass
    assert codes.shape == (3, 64) and set(np.unique(codes)) <= {0.0, 1.0}
    np.testing.assert_array_equal(np.packbits(codes > 0.5, axis=1), hashed.hash(TEXTS[:3]))


def test_passes_the_shared_model_checks(tmp_path):
    encoder = make_tiny_encoder(seed=9)
    model = HashedEncoder(encoder, SemanticHashing(64))
    run_model_test(model, packed_tokens(encoder.tokenizer, TEXTS[:4]), (4, 64), tmp_path)


def test_keras_file_round_trip_gives_the_same_codes(hashed, tmp_path):
    hashed.save(tmp_path / "hashed.keras")
    restored = keras.models.load_model(tmp_path / "hashed.keras")
    assert isinstance(restored, HashedEncoder) and isinstance(restored.hashing, SemanticHashing)
    np.testing.assert_array_equal(restored.hash(TEXTS), hashed.hash(TEXTS))


def test_rejects_a_non_hashing_layer_and_mismatched_embeddings(hashed):
    with pytest.raises(TypeError, match="SemanticHashing"):
        HashedEncoder(hashed.encoder, keras.layers.Dense(64))
    with pytest.raises(ValueError, match="embeddings must be"):
        hashed.hash_embeddings(np.zeros((2, 3), np.float32))
    with pytest.raises(ValueError, match="embeddings row 1 holds NaN or infinity"):
        hashed.hash_embeddings(np.stack([np.ones(16), np.full(16, np.nan)]).astype(np.float32))


def test_export_serves_hash_and_search_in_a_fresh_process(hashed, tmp_path):
    table = hashed.hash(TEXTS)
    ids = np.arange(len(TEXTS)) + 1000
    folder = export_saved_model(hashed, tmp_path / "served", version=1, code_table=table, code_ids=ids)
    queries = ["the cat sat on the mat", "hello", b"\xff\xfe"]
    script = textwrap.dedent(
        """
        import json, sys
        import tensorflow as tf
        import tensorflow_text  # registers the tokenizer's ops
        model = tf.saved_model.load(sys.argv[1])
        texts = tf.constant(json.loads(sys.argv[2]))
        codes = model.signatures["hash"](texts=texts)["codes"].numpy()
        both = model.signatures["embed_and_hash"](texts=texts)
        same = bool((both["codes"].numpy() == codes).all())
        embedding = both["embedding"].numpy().tolist()
        found = model.signatures["search"](texts=texts, k=tf.constant(3))
        many = model.signatures["search"](texts=texts, k=tf.constant(99))
        try:
            model.signatures["search"](texts=texts, k=tf.constant(0))
            zero = "accepted"
        except tf.errors.InvalidArgumentError as error:
            zero = "k must be" if "k must be" in str(error) else str(error)
        print(json.dumps({"sigs": sorted(model.signatures), "codes": codes.tolist(),
                          "same": same, "embedding": embedding,
                          "ids": found["ids"].numpy().tolist(),
                          "distances": found["distances"].numpy().tolist(),
                          "many": list(many["ids"].shape), "zero": zero}))
        """
    )
    texts = [q if isinstance(q, str) else q.decode("latin-1") for q in queries[:2]]
    out = subprocess.run(
        [sys.executable, "-c", script, folder, json.dumps(texts)],
        capture_output=True,
        text=True,
        check=True,
        env={**os.environ, "TF_CPP_MIN_LOG_LEVEL": "3"},
    )
    served = json.loads(out.stdout.strip().splitlines()[-1])
    assert served["sigs"] == ["embed_and_hash", "hash", "search", "serving_default"]
    np.testing.assert_array_equal(np.array(served["codes"], np.uint8), hashed.hash(texts))
    assert served["same"]  # embed_and_hash gives the codes of `hash` and the vectors of `encode`
    np.testing.assert_allclose(served["embedding"], hashed.encode(texts), atol=1e-5)
    index = BinaryIndex(64, backend="numpy")
    index.add(table, ids=ids)
    distances, want_ids = index.search(hashed.hash(texts), 3)
    np.testing.assert_array_equal(served["ids"], want_ids)
    np.testing.assert_array_equal(served["distances"], distances)
    assert served["many"] == [2, len(TEXTS)]  # k larger than the table is clamped
    assert served["zero"] == "k must be"


def test_plain_encoder_export_has_no_hash_signature(tmp_path):
    import tensorflow as tf

    folder = export_saved_model(make_tiny_encoder(seed=1), tmp_path / "plain")
    assert sorted(tf.saved_model.load(folder).signatures) == ["serving_default"]
