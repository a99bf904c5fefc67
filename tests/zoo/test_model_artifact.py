"""Model artifacts: config + own weights + sources rebuild the model exactly, store only
what the sources cannot rebuild, and refuse a corrupted or mismatched part."""

import json
import os

import numpy as np
import pytest

from keras_sentemb.models import BiLSTMSRA
from keras_sentemb.training import distill_hashed_encoder
from keras_sentemb.zoo import model_artifact
from keras_sentemb.zoo.model_artifact import load_artifact, save_artifact, word_vectors_source
from tests.conftest import make_tiny_encoder, make_tiny_word_vectors

TEXTS = ["the cat sat on the mat .", "a dog ran fast", "", "hello world"]


def test_a_model_without_sources_stores_every_weight_and_reloads_exactly(tmp_path):
    encoder = make_tiny_encoder(seed=3)
    description = save_artifact(encoder, tmp_path / "a", weights_dtype="float32")
    assert description["stored_parameters"] == description["total_parameters"]
    assert sorted(os.listdir(tmp_path / "a")) == ["artifact.json", "assets", "model.json", "weights.npz"]
    np.testing.assert_array_equal(load_artifact(tmp_path / "a").encode(TEXTS), encoder.encode(TEXTS))


def test_float16_weights_stay_close(tmp_path):
    encoder = make_tiny_encoder(seed=3)
    save_artifact(encoder, tmp_path / "a", weights_dtype="float16")
    save_artifact(encoder, tmp_path / "b", weights_dtype="float32")
    size = {name: os.path.getsize(tmp_path / name / "weights.npz") for name in "ab"}
    assert size["a"] < 0.7 * size["b"]
    np.testing.assert_allclose(load_artifact(tmp_path / "a").encode(TEXTS), encoder.encode(TEXTS), atol=5e-3)


@pytest.mark.parametrize("encoding, levels, bits", [("int8-rows", 127, 8), ("int6-rows", 31, 6), ("int4-rows", 7, 4)])
def test_row_encodings_store_a_big_token_table_at_their_bits_a_value_within_half_a_step(
    tmp_path, encoding, levels, bits
):
    from keras_sentemb import SentenceTokenizer, StaticEncoder
    from tests.conftest import TINY_VOCAB

    # A table over ROWS_MIN_VALUES values is stored at 8 or 4 bits; the small projection as float16.
    dim = model_artifact.ROWS_MIN_VALUES // len(TINY_VOCAB) + 1  # odd: int4 pads one value a row
    model = StaticEncoder(SentenceTokenizer(TINY_VOCAB), dim=dim, projection_dim=8)
    description = save_artifact(model, tmp_path / "a", weights_dtype=encoding)
    dtypes = {entry["path"].split("/")[0]: entry["dtype"] for entry in description["weights"]}
    assert dtypes == {"token_table": encoding, "token_weights": "float16", "projection": "float16"}
    table = model.token_table.embeddings.numpy()
    loaded = load_artifact(tmp_path / "a")
    step = np.abs(table).max(axis=1, keepdims=True) / levels
    assert (np.abs(loaded.token_table.embeddings.numpy() - table) <= step / 2 + 1e-7).all()
    float16_bytes = 2 * (model.projection.kernel.numpy().size + len(TINY_VOCAB))
    table_bytes = table.shape[0] * ((table.shape[1] * bits + 7) // 8 + 4)
    assert os.path.getsize(tmp_path / "a" / "weights.npz") < table_bytes + float16_bytes + 4096
    np.testing.assert_allclose(loaded.encode(TEXTS), model.encode(TEXTS), atol=2e-2 if bits == 8 else 1e-1)


def test_lora_adapters_are_recreated_and_restored(tmp_path):
    encoder = make_tiny_encoder(seed=4)
    encoder.enable_lora(2)
    for variable in encoder.weights:
        if variable.path.endswith("lora_kernel_b"):
            variable.assign(np.random.default_rng(0).normal(0, 0.1, variable.shape))
    description = save_artifact(encoder, tmp_path / "a", weights_dtype="float32")
    assert description["lora_rank"] == 2
    np.testing.assert_allclose(load_artifact(tmp_path / "a").encode(TEXTS), encoder.encode(TEXTS), atol=1e-6)


@pytest.fixture()
def tiny_word_vectors_source(monkeypatch):
    """The word-vector source rebuilds the tiny tables instead of the 100k-word ones."""
    monkeypatch.setattr(model_artifact, "build_word_vectors", lambda **kwargs: make_tiny_word_vectors(seed=1))
    return word_vectors_source(top_n=13, types=("glove", "minilm"), minilm_dims=4)


def test_word_tables_come_from_their_source_not_the_weights_file(tmp_path, tiny_word_vectors_source):
    model = BiLSTMSRA.from_word_vectors(make_tiny_word_vectors(seed=1), units=4, output_dim=6)
    description = save_artifact(model, tmp_path / "a", [tiny_word_vectors_source], weights_dtype="float32")
    tables = sum(int(np.prod(t.shape)) for t in model.word_embeddings.tables)
    assert description["stored_parameters"] == description["total_parameters"] - tables
    assert not any("table" in w["path"] for w in description["weights"])
    np.testing.assert_array_equal(load_artifact(tmp_path / "a").encode(TEXTS), model.encode(TEXTS))


def test_a_word_source_with_another_vocabulary_is_refused(tmp_path, tiny_word_vectors_source, monkeypatch):
    model = BiLSTMSRA.from_word_vectors(make_tiny_word_vectors(seed=1), units=4, output_dim=6)
    save_artifact(model, tmp_path / "a", [tiny_word_vectors_source])
    other = make_tiny_word_vectors(seed=1)
    other.vocabulary[0] = "zebra"
    monkeypatch.setattr(model_artifact, "build_word_vectors", lambda **kwargs: other)
    with pytest.raises(ValueError, match="vocabulary is not the model tokenizer's"):
        load_artifact(tmp_path / "a")


def test_a_hashed_encoder_keeps_its_codes(tmp_path):
    encoder = make_tiny_encoder(seed=5)
    hashed = distill_hashed_encoder(encoder, encoder.encode(TEXTS * 4), bits=64, epochs=1, verbose=0)
    save_artifact(hashed, tmp_path / "h", weights_dtype="float32")
    np.testing.assert_array_equal(load_artifact(tmp_path / "h").hash(TEXTS), hashed.hash(TEXTS))


def test_a_corrupted_weights_file_is_refused(tmp_path):
    save_artifact(make_tiny_encoder(seed=3), tmp_path / "a")
    path = tmp_path / "a" / "weights.npz"
    data = bytearray(path.read_bytes())
    data[-40] ^= 0xFF
    path.write_bytes(bytes(data))
    with pytest.raises(ValueError, match="does not match artifact.json"):
        load_artifact(tmp_path / "a")
    with pytest.raises(FileNotFoundError, match="missing model.json"):
        load_artifact(tmp_path / "absent")


@pytest.mark.parametrize("edit", ["model.json", "vocabulary", "extra file"])
def test_an_edited_config_or_vocabulary_or_an_added_file_is_refused(tmp_path, edit):
    save_artifact(make_tiny_encoder(seed=3), tmp_path / "a")
    assert set(json.loads((tmp_path / "a" / "artifact.json").read_text())["files_sha256"]) >= {
        "model.json",
        "weights.npz",
    }
    if edit == "model.json":
        path = tmp_path / "a" / "model.json"
        path.write_text(path.read_text().replace('"normalize": false', '"normalize": true'))
    elif edit == "vocabulary":
        vocabulary = next((tmp_path / "a" / "assets").rglob("*.txt"))
        vocabulary.write_text(vocabulary.read_text().replace("cat", "cow"))
    else:
        (tmp_path / "a" / "assets" / "extra.txt").write_text("x")
    with pytest.raises(ValueError, match="does not match artifact.json|not in artifact.json's manifest"):
        load_artifact(tmp_path / "a")


@pytest.mark.parametrize("targets", ["attention", "all"])
def test_lora_factors_are_recovered_from_a_merged_keras_file(tmp_path, targets):
    """Query/value adapters (EinsumDense) and, with every dense layer adapted, the
    feed-forward ones (Dense) too."""
    import keras

    from keras_sentemb.layers.backbone_lora import LORA_TARGETS
    from tests.conftest import make_tiny_cross_encoder
    from zoo.recipes.lora_factors import restore_lora_factors

    trained = make_tiny_cross_encoder(seed=6)
    trained.enable_lora(2, LORA_TARGETS[targets])
    for variable in trained.weights:
        if "lora_kernel" in variable.path or variable.path.startswith("logits/"):
            variable.assign(np.random.default_rng(2).normal(0, 0.2, variable.shape))
    trained.save(tmp_path / "ce.keras")
    merged = keras.saving.load_model(tmp_path / "ce.keras")  # Keras merges LoRA on save
    assert not any("lora" in v.path for v in merged.weights)
    target = make_tiny_cross_encoder(seed=6)
    target.enable_lora(2, LORA_TARGETS[targets])
    assert restore_lora_factors(merged, target) < 1e-5
    first, second = ["the cat sat", "a dog ran fast"], ["hello world", "rain"]
    np.testing.assert_allclose(target.predict_pairs(first, second), trained.predict_pairs(first, second), atol=1e-5)
    full_rank = make_tiny_cross_encoder(seed=6)
    full_rank.enable_lora(1, LORA_TARGETS[targets])
    with pytest.raises(ValueError, match="more than a rank-1 update"):
        restore_lora_factors(merged, full_rank)


def test_lora_factors_are_recovered_from_kernels_saved_in_bfloat16(tmp_path):
    """A model trained in mixed bfloat16 is saved with bfloat16-rounded merged kernels: the rank-r
    update is still recovered (the rounding noise is no update), and a full-rank change is still refused."""
    import keras
    import tensorflow as tf

    from keras_sentemb.layers.backbone_lora import ALL_TRANSFORMER_DENSE_LAYERS
    from tests.conftest import make_tiny_cross_encoder
    from zoo.recipes.lora_factors import restore_lora_factors

    trained = make_tiny_cross_encoder(seed=6)
    trained.enable_lora(2, ALL_TRANSFORMER_DENSE_LAYERS)
    for variable in trained.weights:
        if "lora_kernel" in variable.path:
            variable.assign(np.random.default_rng(2).normal(0, 0.2, variable.shape))
    trained.save(tmp_path / "ce.keras")
    merged = keras.saving.load_model(tmp_path / "ce.keras")
    for variable in merged.weights:
        if variable.path.endswith("/kernel") and "transformer_layer" in variable.path:
            variable.assign(tf.cast(tf.cast(variable, tf.bfloat16), tf.float32))  # what a bfloat16 save keeps
    target = make_tiny_cross_encoder(seed=6)
    target.enable_lora(2, ALL_TRANSFORMER_DENSE_LAYERS)
    assert restore_lora_factors(merged, target) < 1e-5
    first, second = ["the cat sat", "a dog ran fast"], ["hello world", "rain"]
    np.testing.assert_allclose(target.predict_pairs(first, second), trained.predict_pairs(first, second), atol=2e-2)
    full_rank = make_tiny_cross_encoder(seed=6)
    full_rank.enable_lora(1, ALL_TRANSFORMER_DENSE_LAYERS)
    with pytest.raises(ValueError, match="more than a rank-1 update"):
        restore_lora_factors(merged, full_rank)
