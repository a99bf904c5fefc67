"""MultiVectorIndex: exact MaxSim over int8-stored token vectors, FAISS's token index naming the candidates (recall@10
against the exact search ≥ 0.95), saved and loaded with every file checked."""

import json

import numpy as np
import pytest

from keras_sentemb.retrieval.int8_vectors import Int8Vectors
from keras_sentemb.retrieval.multi_vector_index import MultiVectorIndex
from keras_sentemb.utils.maxsim import maxsim


def clustered_documents(count, dim=32, seed=0):
    """`count` documents of 5–30 unit token vectors around 3 of 60 topic centres each (and 12 queries alike)."""
    rng = np.random.default_rng(seed)
    centres = rng.normal(size=(60, dim))

    def text(tokens):
        topics = centres[rng.integers(0, 60, size=3)]
        vectors = topics[rng.integers(0, 3, size=tokens)] + 0.7 * rng.normal(size=(tokens, dim))
        return (vectors / np.linalg.norm(vectors, axis=1, keepdims=True)).astype(np.float32)

    return [text(int(rng.integers(5, 31))) for _ in range(count)], [text(8) for _ in range(12)]


@pytest.fixture(scope="module")
def corpus():
    return clustered_documents(600)


def test_exact_search_ranks_every_document_by_maxsim_over_the_stored_int8_vectors(corpus):
    documents, queries = corpus
    index = MultiVectorIndex(documents)
    ids, scores = index.search(queries, top_k=5)
    stored = Int8Vectors.quantize(np.concatenate(documents))
    offsets = np.cumsum([0] + [len(d) for d in documents])
    dequantised = [stored[slice(a, b)] for a, b in zip(offsets, offsets[1:])]
    expected = maxsim(queries, dequantised)
    for row in range(len(queries)):
        best = np.argsort(-expected[row], kind="stable")[:5]
        np.testing.assert_array_equal(ids[row], best)
        np.testing.assert_allclose(scores[row], expected[row, best], rtol=1e-5)


def test_int8_storage_keeps_the_float_ranking(corpus):
    documents, queries = corpus
    ids, _ = MultiVectorIndex(documents).search(queries, top_k=10)
    exact = np.argsort(-maxsim(queries, documents), axis=1, kind="stable")[:, :10]
    recall = np.mean([len(set(a) & set(b)) / 10 for a, b in zip(ids, exact)])
    assert recall >= 0.95


def test_faiss_candidates_find_the_exact_top_10(corpus):
    documents, queries = corpus
    exact_ids, _ = MultiVectorIndex(documents).search(queries, top_k=10)
    index = MultiVectorIndex(documents, engine="faiss")
    ids, scores = index.search(queries, top_k=10)
    recall = np.mean([len(set(a) & set(b)) / 10 for a, b in zip(ids, exact_ids)])
    assert recall >= 0.95
    assert (np.diff(scores, axis=1) <= 0).all()
    np.testing.assert_array_equal(index.search(queries, top_k=10, engine="exact")[0], exact_ids)
    assert index.bytes_per_document > MultiVectorIndex(documents).bytes_per_document  # the token index's share


def test_meanmaxsim_divides_by_the_querys_vectors(corpus):
    documents, queries = corpus
    plain = MultiVectorIndex(documents).search(queries[:2], top_k=3)
    mean = MultiVectorIndex(documents, length_normalize=True).search(queries[:2], top_k=3)
    np.testing.assert_array_equal(plain[0], mean[0])
    np.testing.assert_allclose(mean[1], plain[1] / 8, rtol=1e-6)


@pytest.mark.parametrize("engine", ["exact", "faiss"])
def test_a_saved_index_loads_and_searches_the_same(corpus, engine, tmp_path):
    documents, queries = corpus
    index = MultiVectorIndex(documents, engine=engine, documents_sha256="ab" * 32)
    index.save(tmp_path / "index")
    loaded = MultiVectorIndex.load(tmp_path / "index", documents_sha256="ab" * 32)
    for got, want in zip(loaded.search(queries, 7), index.search(queries, 7)):
        np.testing.assert_array_equal(got, want)
    with pytest.raises(ValueError, match="indexes other documents"):
        MultiVectorIndex.load(tmp_path / "index", documents_sha256="cd" * 32)


@pytest.mark.parametrize("name", ["vectors.npz", "tokens.faiss"])
def test_a_changed_file_is_refused(corpus, name, tmp_path):
    MultiVectorIndex(corpus[0][:100], engine="faiss").save(tmp_path / "index")
    with open(tmp_path / "index" / name, "r+b") as f:
        f.seek(80)
        f.write(b"\x13\x37")
    with pytest.raises(ValueError, match=f"{name}: its sha256 differs"):
        MultiVectorIndex.load(tmp_path / "index")


def test_meta_that_lies_about_the_sizes_is_refused(corpus, tmp_path):
    MultiVectorIndex(corpus[0][:50]).save(tmp_path / "index")
    path = tmp_path / "index" / "multi_vector.json"
    meta = json.loads(path.read_text())
    path.write_text(json.dumps({**meta, "tokens": meta["tokens"] + 1}))
    with pytest.raises(ValueError, match=r"values is int8 \(\d+, 32\), not int8"):
        MultiVectorIndex.load(tmp_path / "index")


@pytest.mark.parametrize(
    "documents, error, message",
    [
        ([], ValueError, "no documents"),
        (np.zeros((2, 3, 4), np.float32), TypeError, "must be a list"),
        ([np.ones((2, 4), np.float32), np.zeros((0, 4), np.float32)], ValueError, r"#1 is \(0, 4\)"),
        ([np.ones((2, 4), np.float32), np.ones((2, 5), np.float32)], ValueError, r"#1 is \(2, 5\)"),
        ([np.full((2, 4), np.nan, np.float32)], ValueError, "#0 holds NaN"),
    ],
)
def test_documents_that_are_not_token_vectors_are_refused(documents, error, message):
    with pytest.raises(error, match=message):
        MultiVectorIndex(documents)


def test_bad_searches_and_settings_are_refused(corpus):
    documents, queries = corpus
    index = MultiVectorIndex(documents[:20])
    with pytest.raises(ValueError, match="top_k"):
        index.search(queries, top_k=0)
    with pytest.raises(ValueError, match="16 wide, the documents' 32"):
        index.search([np.ones((2, 16), np.float32)])
    with pytest.raises(ValueError, match="built without FAISS"):
        index.search(queries, engine="faiss")
    with pytest.raises(ValueError, match="nprobe must be an integer ≥ 1"):
        index.set_search_settings(nprobe=0)
    with pytest.raises(ValueError, match="unknown setting 'ef'"):
        index.set_search_settings(ef=3)
