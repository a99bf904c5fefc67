"""SparseIndex: the exact search is every document's dot product, best first; Seismic's approximate search finds
(nearly) the same top 10; a saved folder loads back only as it was written."""

import json
import os

import numpy as np
import pytest
import scipy.sparse

from keras_sentemb.retrieval.sparse_index import META_FILE, VECTORS_FILE, SparseIndex


def random_rows(rng, count, width=2000, active=40):
    """CSR rows whose entries follow a Zipf-like popularity, as a vocabulary's do."""
    popularity = 1.0 / np.arange(1, width + 1) ** 0.8
    popularity /= popularity.sum()
    rows = np.zeros((count, width), np.float32)
    for row in rows:
        ids = rng.choice(width, size=active, p=popularity)
        row[ids] = rng.gamma(1.0, 1.0, size=active)
    return scipy.sparse.csr_matrix(rows)


@pytest.fixture(scope="module")
def corpus():
    rng = np.random.default_rng(0)
    return random_rows(rng, 1500), random_rows(rng, 60, active=12)


def test_the_exact_search_is_every_documents_dot_product(corpus):
    documents, queries = corpus
    ids, scores = SparseIndex(documents).search(queries, top_k=7)
    dense = queries.toarray() @ documents.toarray().T
    for row in range(queries.shape[0]):
        expected = np.lexsort((np.arange(dense.shape[1]), -dense[row]))[:7]
        np.testing.assert_array_equal(ids[row], expected)
        np.testing.assert_allclose(scores[row], dense[row][expected], rtol=1e-5)


def test_documents_sharing_no_entry_are_no_hits():
    documents = scipy.sparse.csr_matrix(np.array([[1.0, 0, 0], [0, 2.0, 0]], np.float32))
    ids, scores = SparseIndex(documents).search(scipy.sparse.csr_matrix(np.array([[0, 1.0, 0], [0, 0, 1.0]])), 5)
    assert ids.tolist() == [[1, -1], [-1, -1]] and scores.tolist() == [[2.0, 0.0], [0.0, 0.0]]


def test_seismic_finds_the_exact_top_10(corpus):
    documents, queries = corpus
    index = SparseIndex(documents, engine="seismic")
    exact, _ = index.search(queries, 10, engine="exact")
    approximate, scores = index.search(queries, 10)
    recall = np.mean([len(set(a[a >= 0]) & set(b[b >= 0])) / (a >= 0).sum() for a, b in zip(exact, approximate)])
    assert recall >= 0.98
    assert (np.diff(scores, axis=1) <= 1e-6).all()


def test_a_saved_index_loads_as_it_was(tmp_path, corpus):
    documents, queries = corpus
    for engine in ("exact", "seismic"):
        index = SparseIndex(documents, engine=engine, documents_sha256="abc")
        folder = index.save(tmp_path / engine)
        loaded = SparseIndex.load(folder, documents_sha256="abc")
        for got, expected in zip(loaded.search(queries, 10), index.search(queries, 10)):
            np.testing.assert_array_equal(got, expected)


def _tampered_vectors(folder):
    with open(folder / VECTORS_FILE, "r+b") as f:
        f.seek(100)
        f.write(b"\x00\x01")


def _wrong_format(folder):
    meta = json.loads((folder / META_FILE).read_text())
    meta["format"] = 99
    (folder / META_FILE).write_text(json.dumps(meta))


def _unknown_engine(folder):
    meta = json.loads((folder / META_FILE).read_text())
    meta["engine"] = "faiss"
    (folder / META_FILE).write_text(json.dumps(meta))


def _bad_search_setting(folder):
    meta = json.loads((folder / META_FILE).read_text())
    meta["search"]["heap_factor"] = -1
    (folder / META_FILE).write_text(json.dumps(meta))


@pytest.mark.parametrize(
    ("change", "error", "message"),
    [
        (_tampered_vectors, ValueError, "its sha256 differs"),
        (_wrong_format, ValueError, "format 99"),
        (_unknown_engine, ValueError, "engine 'faiss'"),
        (_bad_search_setting, ValueError, "heap_factor must be a positive float"),
        (lambda folder: os.remove(folder / META_FILE), FileNotFoundError, "not a sparse index"),
    ],
)
def test_a_folder_that_is_not_what_was_written_is_refused(tmp_path, corpus, change, error, message):
    folder = SparseIndex(corpus[0][:50]).save(tmp_path / "index")
    change(tmp_path / "index")
    with pytest.raises(error, match=message):
        SparseIndex.load(folder)


def test_other_documents_and_bad_vectors_are_refused(tmp_path, corpus):
    folder = SparseIndex(corpus[0][:50], documents_sha256="abc").save(tmp_path / "index")
    with pytest.raises(ValueError, match="indexes other documents"):
        SparseIndex.load(folder, documents_sha256="xyz")
    with pytest.raises(ValueError, match="negative, NaN or infinite"):
        SparseIndex(scipy.sparse.csr_matrix(np.array([[1.0, -2.0]], np.float32)))
    with pytest.raises(TypeError, match="scipy.sparse matrix"):
        SparseIndex(np.ones((2, 2)))
    with pytest.raises(ValueError, match="the queries are 3 wide, the documents 2"):
        SparseIndex(scipy.sparse.csr_matrix(np.ones((2, 2), np.float32))).search(
            scipy.sparse.csr_matrix(np.ones((1, 3)))
        )
