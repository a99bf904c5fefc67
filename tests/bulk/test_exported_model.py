"""Bulk workers load an exported folder once and embed batches of str or bytes as `encode` does."""

import os

import numpy as np
import pytest

from keras_sentemb.bulk import ExportedModel, load_exported_model
from keras_sentemb.bulk.exported_model import exported_version
from keras_sentemb.export import export_saved_model
from keras_sentemb.training import distill_hashed_encoder
from tests.conftest import make_tiny_encoder

TEXTS = ["the cat sat on the mat", "caf\u00e9 stra\u00dfe", "", "a dog ran fast"]


@pytest.fixture(scope="module")
def hashed_export(tmp_path_factory):
    encoder = make_tiny_encoder(seed=3)
    hashed = distill_hashed_encoder(encoder, encoder.encode(TEXTS), bits=64, epochs=1, batch_size=4, verbose=0)
    base = tmp_path_factory.mktemp("served") / "tiny"
    export_saved_model(hashed, base, version=1)
    return hashed, export_saved_model(hashed, base, version=2)


def test_vectors_and_codes_equal_encode_and_hash_for_str_and_bytes(hashed_export):
    hashed, folder = hashed_export
    model = ExportedModel(folder)
    assert model.kind == "saved_model" and model.with_codes
    vectors, codes = model.embed([t.encode("utf-8") for t in TEXTS[:2]] + TEXTS[2:])
    np.testing.assert_allclose(vectors, hashed.encode(TEXTS), atol=1e-5)
    np.testing.assert_array_equal(codes, hashed.hash(TEXTS))
    assert ExportedModel(folder, with_codes=False).embed(TEXTS)[1] is None


def test_a_base_folder_names_its_highest_version(hashed_export):
    _, folder = hashed_export
    base = os.path.dirname(folder)
    assert exported_version(base) == folder
    assert load_exported_model(base).model_dir == folder
    assert load_exported_model(base) is load_exported_model(base)  # once per process


def test_a_folder_without_a_model_says_how_to_write_one(tmp_path):
    with pytest.raises(FileNotFoundError, match="keras-sentemb export"):
        ExportedModel(tmp_path)


def test_codes_of_a_model_without_them_and_non_text_rows_are_refused(tmp_path, hashed_export):
    plain = export_saved_model(make_tiny_encoder(seed=4), tmp_path / "plain", version=1)
    with pytest.raises(ValueError, match="no `hash` signature"):
        ExportedModel(plain, with_codes=True)
    with pytest.raises(TypeError, match="text 1 of the batch is int"):
        ExportedModel(plain).embed(["a cat", 7])
