"""Word-vector tables built with a sentence encoder: the MiniLM word table is the centred
PCA projection of each word's vector, and build_word_vectors aligns it with GloVe on one
vocabulary, computing it once per cache key."""

import numpy as np
import pytest

from keras_sentemb.models import word_vector_tables
from keras_sentemb.models.word_vector_tables import build_word_vectors, minilm_word_table


class FakeEncoder:
    """Stands in for MiniLM: a fixed random unit vector per word; counts its calls."""

    calls = 0

    class backbone:  # noqa: N801  (an attribute standing in for the BERT backbone)
        hidden_act = "gelu"

        @classmethod
        def use_hidden_act(cls, name):
            cls.hidden_act = name

    def encode(self, words, batch_size=512, progress=True):
        FakeEncoder.calls += 1
        rng = np.random.default_rng(len(words))
        vectors = rng.normal(size=(len(words), 8)).astype("float32")
        return vectors / np.linalg.norm(vectors, axis=1, keepdims=True)


def test_minilm_word_table_is_the_centred_pca_projection_unit_normalised():
    words = [f"w{i}" for i in range(20)]
    table = minilm_word_table(words, FakeEncoder(), dims=3)
    full = FakeEncoder().encode(words)
    centred = full - full.mean(0)
    _, _, components = np.linalg.svd(centred, full_matrices=False)
    expected = centred @ components[:3].T
    expected /= np.linalg.norm(expected, axis=1, keepdims=True)
    np.testing.assert_allclose(table, expected, rtol=1e-5, atol=1e-6)
    with pytest.raises(ValueError, match="dims"):
        minilm_word_table(words, FakeEncoder(), dims=9)


@pytest.fixture
def fake_minilm(monkeypatch):
    """MiniLM replaced by `FakeEncoder` (its call count reset) for the "minilm" table."""

    class FakeSentenceEncoder:
        @staticmethod
        def from_pretrained(name):
            return FakeEncoder()

    monkeypatch.setattr(word_vector_tables, "SentenceEncoder", FakeSentenceEncoder)
    monkeypatch.setattr(word_vector_tables, "fingerprint_weights", lambda encoder: "fake-weights")
    FakeEncoder.calls = 0


def test_glove_only_tables_have_the_two_reserved_rows():
    vectors = build_word_vectors(top_n=50, types=("glove",))
    assert len(vectors.vocabulary) == 50 and vectors.tables["glove"].shape == (52, 50)
    np.testing.assert_array_equal(vectors.tables["glove"][:2], 0.0)


def test_the_minilm_table_is_aligned_with_glove_and_cached(fake_minilm, tmp_path):
    first = build_word_vectors(top_n=30, minilm_dims=4, cache_dir=tmp_path, progress=False)
    again = build_word_vectors(top_n=30, minilm_dims=4, cache_dir=tmp_path, progress=False)
    assert FakeEncoder.calls == 1
    assert FakeEncoder.backbone.hidden_act == "gelu_pytorch_tanh"  # the computation the table was defined with
    assert first.tables["minilm"].shape == (32, 4) and first.tables["glove"].shape == (32, 50)
    np.testing.assert_array_equal(first.tables["minilm"], again.tables["minilm"])


def test_an_encoded_minilm_table_is_the_float_table_quantised_and_cached_under_its_own_key(fake_minilm, tmp_path):
    exact = build_word_vectors(top_n=30, minilm_dims=4, cache_dir=tmp_path, progress=False).tables["minilm"]
    encoded = build_word_vectors(
        top_n=30, minilm_dims=4, cache_dir=tmp_path, progress=False, minilm_encoding="int8-rows"
    )
    again = build_word_vectors(top_n=30, minilm_dims=4, cache_dir=tmp_path, progress=False, minilm_encoding="int8-rows")
    assert FakeEncoder.calls == 1  # the float table is computed once; the int8 one is derived from it
    assert sorted(p.name.rsplit("-", 1)[0] for p in tmp_path.glob("*.json")) == [
        "minilm-word-vectors-4d",
        "minilm-word-vectors-4d-int8-rows",
    ]
    step = np.abs(exact).max(axis=1, keepdims=True) / 127
    assert (np.abs(encoded.tables["minilm"] - exact) <= step / 2 + 1e-7).all()
    assert not np.array_equal(encoded.tables["minilm"], exact)
    np.testing.assert_array_equal(encoded.tables["minilm"], again.tables["minilm"])
    uncached = build_word_vectors(top_n=30, minilm_dims=4, progress=False, minilm_encoding="int8-rows")
    np.testing.assert_array_equal(uncached.tables["minilm"], encoded.tables["minilm"])


@pytest.mark.parametrize("types", [(), ("glove", "word2vec")])
def test_unknown_or_no_types_are_refused(types):
    with pytest.raises(ValueError, match="non-empty subset"):
        build_word_vectors(top_n=10, types=types)
