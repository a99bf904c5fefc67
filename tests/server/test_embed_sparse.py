"""POST /embed_sparse answers as text-embeddings-inference's does ([[{"index", "value"}, …], …]) with the rows of
`encode_document` / `encode_query`; a sparse model refuses /embed and /v1/embeddings, a dense one /embed_sparse."""

import os

import numpy as np
import pytest

from keras_sentemb.models import SparseEncoder
from tests.conftest import make_tiny_encoder
from tests.server.served_app import ready_client

FOLDERS = os.path.join(os.path.dirname(os.path.dirname(__file__)), "fixtures", "sparse_folders")
TEXTS = ["the cat sat on the mat .", "a dog ran fast", "", "hello world !"]


@pytest.fixture(scope="module")
def model():
    return SparseEncoder.from_pretrained(os.path.join(FOLDERS, "bert_inference_free"))


@pytest.fixture(scope="module")
def client(model):
    with ready_client(model, name="splade") as client:
        yield client


def dense(entries, width):
    rows = np.zeros((len(entries), width), np.float32)
    for row, pairs in enumerate(entries):
        values = [pair["value"] for pair in pairs]
        assert values == sorted(values, reverse=True) and all(value > 0 for value in values)
        for pair in pairs:
            rows[row, pair["index"]] = pair["value"]
    return rows


def test_documents_are_encode_documents_rows(client, model):
    response = client.post("/embed_sparse", json={"inputs": TEXTS})
    assert response.status_code == 200
    np.testing.assert_allclose(
        dense(response.json(), model.embedding_dim), model.encode_document(TEXTS).toarray(), atol=1e-6
    )


def test_queries_of_an_inference_free_model_are_its_static_rows(client, model):
    response = client.post("/embed_sparse", json={"inputs": TEXTS, "side": "query"})
    assert response.status_code == 200
    np.testing.assert_array_equal(dense(response.json(), model.embedding_dim), model.encode_query(TEXTS).toarray())


def test_a_single_text_and_max_active_dims(client, model):
    response = client.post("/embed_sparse", json={"inputs": "a dog ran fast", "max_active_dims": 3})
    (row,) = response.json()
    assert len(row) == 3
    expected = model.encode_document(["a dog ran fast"], max_active_dims=3).toarray()
    np.testing.assert_allclose(dense([row], model.embedding_dim), expected, atol=1e-6)


@pytest.mark.parametrize(
    ("body", "status", "message"),
    [
        ({"inputs": TEXTS, "side": "both"}, 422, "side"),
        ({"inputs": TEXTS, "max_active_dims": 0}, 422, "max_active_dims"),
        ({"inputs": TEXTS, "prompt_name": "nope"}, 422, "prompt_name"),
        ({"inputs": [1, 2]}, 422, "inputs"),
        ({"inputs": ["word " * 200], "truncate": False}, 413, "longer than"),
    ],
)
def test_bad_requests_are_named(client, body, status, message):
    response = client.post("/embed_sparse", json=body)
    assert response.status_code == status and message in response.json()["error"]


def test_a_sparse_model_refuses_the_dense_endpoints_saying_why(client):
    response = client.post("/v1/embeddings", json={"input": ["a"], "model": "splade"})
    assert response.status_code == 422 and "POST /embed_sparse" in response.json()["error"]["message"]
    response = client.post("/embed", json={"inputs": ["a"]})
    assert response.status_code == 422 and "POST /embed_sparse" in response.json()["error"]


def test_a_dense_model_refuses_embed_sparse():
    with ready_client(make_tiny_encoder(seed=3)) as client:
        response = client.post("/embed_sparse", json={"inputs": ["a"]})
    assert response.status_code == 422 and "not a sparse encoder" in response.json()["error"]
