"""A multi-vector (ColBERT) model served: POST /embed_all answers as text-embeddings-inference's does ([[[float, …] a
token, …] a text, …]) with `encode_query`'s vectors for "side": "query" — marker and expansion fillers kept, the case
vLLM's ColBERT serving gets wrong — and `encode_document`'s otherwise; POST /rerank scores by MaxSim; the pooled
endpoints refuse, naming /embed_all."""

import os

import numpy as np
import pytest

from keras_sentemb.models import MultiVectorEncoder
from tests.conftest import make_tiny_encoder
from tests.fixture_folders import LONG_QUERY, MULTI_VECTOR_FOLDERS
from tests.server.served_app import ready_client

TEXTS = ["the cat sat on the mat .", "a dog ran fast", "", "hello world !", LONG_QUERY]


@pytest.fixture(scope="module")
def model():
    return MultiVectorEncoder.from_pretrained(os.path.join(MULTI_VECTOR_FOLDERS, "bert_colbert"))


@pytest.fixture(scope="module")
def client(model):
    with ready_client(model, name="colbert") as client:
        yield client


def assert_rows_equal(answer, expected):
    assert [len(row) for row in answer] == [len(row) for row in expected]
    for got, want in zip(answer, expected):
        np.testing.assert_allclose(np.asarray(got, np.float32), want, atol=1e-5)


def test_query_side_vectors_are_encode_querys_fillers_and_all(client, model):
    response = client.post("/embed_all", json={"inputs": TEXTS, "side": "query"})
    assert response.status_code == 200
    assert_rows_equal(response.json(), model.encode_query(TEXTS))
    assert {len(row) for row in response.json()} == {16}  # every query expanded to 16 vectors


def test_document_side_vectors_are_encode_documents(client, model):
    response = client.post("/embed_all", json={"inputs": TEXTS})
    assert response.status_code == 200
    assert_rows_equal(response.json(), model.encode_document(TEXTS))
    (row,) = client.post("/embed_all", json={"inputs": "a dog ran fast", "side": "document"}).json()
    assert_rows_equal([row], model.encode_document(["a dog ran fast"]))


def test_rerank_orders_the_texts_by_maxsim(client, model):
    query, texts = "a cat on a mat", TEXTS[:4]
    response = client.post("/rerank", json={"query": query, "texts": texts, "return_text": True})
    assert response.status_code == 200
    expected = model.similarity(model.encode_query([query]), model.encode_document(texts))[0]
    ranked = response.json()
    assert [hit["index"] for hit in ranked] == np.argsort(-expected, kind="stable").tolist()
    np.testing.assert_allclose([hit["score"] for hit in ranked], np.sort(expected)[::-1], rtol=1e-5)
    assert [hit["text"] for hit in ranked] == [texts[hit["index"]] for hit in ranked]


@pytest.mark.parametrize(
    ("body", "status", "message"),
    [
        ({"inputs": TEXTS, "side": "both"}, 422, "side"),
        ({"inputs": TEXTS, "prompt_name": "nope"}, 422, "prompt_name"),
        ({"inputs": [1, 2]}, 422, "inputs"),
        ({"inputs": [LONG_QUERY], "truncate": False}, 413, "inputs[0]: longer than colbert's 40 tokens a document"),
        ({"inputs": [LONG_QUERY], "side": "query", "truncate": False}, 413, "16 tokens a query"),
    ],
)
def test_bad_requests_are_named(client, body, status, message):
    response = client.post("/embed_all", json=body)
    assert response.status_code == status and message in response.json()["error"]


def test_a_multi_vector_model_refuses_the_pooled_endpoints_saying_why(client):
    response = client.post("/v1/embeddings", json={"input": ["a"], "model": "colbert"})
    assert response.status_code == 422 and "POST /embed_all" in response.json()["error"]["message"]
    for path in ("/embed", "/embed_sparse"):
        response = client.post(path, json={"inputs": ["a"]})
        assert response.status_code == 422 and "POST /embed_all" in response.json()["error"]


def test_a_dense_model_has_no_embed_all():
    with ready_client(make_tiny_encoder(seed=3)) as client:
        assert client.post("/embed_all", json={"inputs": ["a"]}).status_code == 404
