"""The server's endpoints answer as OpenAI's and text-embeddings-inference's APIs do, with the vectors
`encode` gives: /v1/embeddings, /embed, /v1/models, /health, /metrics, API keys and CORS."""

import base64

import numpy as np
import pytest

from keras_sentemb.layers.semantic_hashing import SemanticHashing
from keras_sentemb.models.hashed_encoder import HashedEncoder
from tests.conftest import make_tiny_encoder
from tests.server.served_app import ready_client

TEXTS = ["the cat sat on the mat .", "a dog ran fast", "", "hello world !"]
KEY = "k" * 8 + "0123456789abcdef"


@pytest.fixture(scope="module")
def encoder():
    return make_tiny_encoder(seed=3, prompts={"query": "hello ", "document": ""}, default_prompt_name="document")


@pytest.fixture(scope="module")
def client(encoder):
    with ready_client(encoder) as client:
        yield client


def test_openai_embeddings_are_the_vectors_of_encode_in_input_order(client, encoder):
    response = client.post("/v1/embeddings", json={"input": TEXTS, "model": "tiny"})
    assert response.status_code == 200
    body = response.json()
    assert body["object"] == "list" and body["model"] == "tiny"
    assert [item["index"] for item in body["data"]] == [0, 1, 2, 3]
    assert {item["object"] for item in body["data"]} == {"embedding"}
    vectors = np.array([item["embedding"] for item in body["data"]], np.float32)
    np.testing.assert_allclose(vectors, encoder.encode(TEXTS), atol=1e-6)


def test_a_single_string_input_is_one_embedding(client, encoder):
    body = client.post("/v1/embeddings", json={"input": "a dog ran fast", "model": "tiny"}).json()
    assert len(body["data"]) == 1
    np.testing.assert_allclose(body["data"][0]["embedding"], encoder.encode("a dog ran fast"), atol=1e-6)


def test_base64_is_little_endian_float32_of_the_same_vectors(client, encoder):
    body = client.post("/v1/embeddings", json={"input": TEXTS, "model": "tiny", "encoding_format": "base64"}).json()
    vectors = np.stack([np.frombuffer(base64.b64decode(item["embedding"]), "<f4") for item in body["data"]])
    np.testing.assert_allclose(vectors, encoder.encode(TEXTS), atol=1e-6)


def test_dimensions_truncate_then_renormalise_as_encode_truncate_dim(client, encoder):
    body = client.post("/v1/embeddings", json={"input": TEXTS, "model": "tiny", "dimensions": 8}).json()
    vectors = np.array([item["embedding"] for item in body["data"]], np.float32)
    np.testing.assert_allclose(vectors, encoder.encode(TEXTS, truncate_dim=8), atol=1e-6)
    np.testing.assert_allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-6)


def test_dimensions_above_the_model_width_are_refused_naming_the_field(client):
    response = client.post("/v1/embeddings", json={"input": "a", "model": "tiny", "dimensions": 17})
    assert response.status_code == 422
    error = response.json()["error"]
    assert error["param"] == "dimensions" and "17 is over tiny's 16" in error["message"]


def test_usage_counts_the_tokens_the_model_read_special_tokens_included(client, encoder):
    body = client.post("/v1/embeddings", json={"input": ["the cat", "a dog ran fast"], "model": "tiny"}).json()
    rows = encoder.tokenizer.content_id_rows(["the cat", "a dog ran fast"])
    expected = sum(len(row) + 2 for row in rows)
    assert body["usage"] == {"prompt_tokens": expected, "total_tokens": expected}


def test_prompt_name_selects_the_model_prompt_and_an_unknown_one_is_named(client, encoder):
    body = client.post("/v1/embeddings", json={"input": TEXTS, "model": "tiny", "prompt_name": "query"}).json()
    vectors = np.array([item["embedding"] for item in body["data"]], np.float32)
    np.testing.assert_allclose(vectors, encoder.encode(TEXTS, prompt_name="query"), atol=1e-6)
    response = client.post("/v1/embeddings", json={"input": "a", "model": "tiny", "prompt_name": "passage"})
    assert response.status_code == 422
    assert response.json()["error"]["param"] == "prompt_name"
    assert "'document', 'query'" in response.json()["error"]["message"]


def test_another_model_name_is_a_404_naming_the_served_one(client):
    response = client.post("/v1/embeddings", json={"input": "a", "model": "text-embedding-3-small"})
    assert response.status_code == 404
    assert "this server serves 'tiny'" in response.json()["error"]["message"]


def test_tei_embed_returns_arrays_normalised_or_not(client, encoder):
    vectors = np.array(client.post("/embed", json={"inputs": TEXTS}).json(), np.float32)
    np.testing.assert_allclose(vectors, encoder.encode(TEXTS), atol=1e-6)
    raw = np.array(client.post("/embed", json={"inputs": "a dog ran fast", "normalize": False}).json(), np.float32)
    np.testing.assert_allclose(raw, encoder.encode(["a dog ran fast"], normalize=False), atol=1e-5)


def test_tei_truncate_false_refuses_a_text_over_the_model_limit(client):
    long_text = " ".join(["cat"] * 40)  # 40 word pieces; the model reads 16 tokens
    response = client.post("/embed", json={"inputs": ["a dog", long_text], "truncate": False})
    assert response.status_code == 413
    assert response.json()["error"].startswith("inputs[1]: longer than tiny's 16 tokens")
    assert client.post("/embed", json={"inputs": ["a dog", long_text]}).status_code == 200  # truncated


def test_binary_codes_need_a_hashed_model(client):
    response = client.post("/embed", json={"inputs": "a", "binary": True})
    assert response.status_code == 422
    assert response.json()["error"].startswith("binary: tiny has no hashing layer")


def test_a_hashed_model_gives_its_packed_codes_and_their_prefix(encoder):
    hashed = HashedEncoder(encoder, SemanticHashing(64))
    with ready_client(hashed, name="hashed") as client:
        codes = np.array(client.post("/embed", json={"inputs": TEXTS, "binary": True}).json())
        prefix = np.array(client.post("/embed", json={"inputs": TEXTS, "binary": True, "bits": 16}).json())
        refused = client.post("/embed", json={"inputs": TEXTS, "binary": True, "bits": 12})
        truncated = client.post("/embed", json={"inputs": TEXTS, "binary": True, "dimensions": 8})
    np.testing.assert_array_equal(codes, hashed.hash(TEXTS))
    np.testing.assert_array_equal(prefix, hashed.hash(TEXTS, bits=16))
    assert refused.status_code == 422 and refused.json()["error"].startswith(
        "bits must be a multiple of 8 from 8 to 64 (the code length), got 12"
    )
    assert truncated.status_code == 422 and truncated.json()["error"].startswith("dimensions: not with binary=true")


def test_chunking_pools_long_texts_as_encode_does(client, encoder):
    from keras_sentemb.chunking import Chunking

    long_text = " ".join(["the cat sat on the mat ."] * 6)
    chunking = {"size": 6, "overlap": 2, "pooling": "mean"}
    body = client.post(
        "/v1/embeddings", json={"input": [long_text, "a dog"], "model": "tiny", "chunking": chunking}
    ).json()
    vectors = np.array([item["embedding"] for item in body["data"]], np.float32)
    np.testing.assert_allclose(vectors, encoder.encode([long_text, "a dog"], chunking=Chunking(**chunking)), atol=1e-6)
    whole = sum(len(ids) + 2 for ids, _ in encoder.tokenizer.content_ids_with_offsets([long_text, "a dog"]))
    assert body["usage"]["prompt_tokens"] == whole


def test_models_lists_the_served_model_with_its_width_and_limit(client):
    body = client.get("/v1/models").json()
    assert body["object"] == "list"
    (model,) = body["data"]
    assert model["id"] == "tiny" and model["object"] == "model" and model["owned_by"] == "keras-sentemb"
    assert (model["dimensions"], model["max_tokens"], model["kind"]) == (16, 16, "embedding")


def test_health_is_ok_after_the_warm_up_request(client):
    assert client.get("/health").json() == {"status": "ok", "model": "tiny"}


def test_metrics_are_prometheus_text_with_requests_batches_and_queue(client):
    client.post("/embed", json={"inputs": TEXTS})
    response = client.get("/metrics")
    assert response.headers["content-type"].startswith("text/plain")
    text = response.text
    assert 'keras_sentemb_requests_total{endpoint="/embed",status="200"}' in text
    assert 'keras_sentemb_request_seconds_bucket{endpoint="/embed",le="0.001"}' in text
    assert "keras_sentemb_batch_texts_count" in text and "keras_sentemb_queue_texts 0.0" in text
    assert 'keras_sentemb_texts_total{endpoint="/embed"}' in text


def test_cors_is_off_unless_origins_are_given(client, encoder):
    preflight = {"Origin": "https://example.org", "Access-Control-Request-Method": "POST"}
    assert "access-control-allow-origin" not in client.options("/embed", headers=preflight).headers
    with ready_client(encoder, cors_origins=("https://example.org",)) as allowing:
        headers = allowing.options("/embed", headers=preflight).headers
    assert headers["access-control-allow-origin"] == "https://example.org"


def test_api_keys_guard_every_endpoint_but_health(encoder):
    with ready_client(encoder, api_keys=(KEY.encode(),)) as client:
        assert client.get("/health").status_code == 200
        for method, path, body in (
            ("post", "/embed", {"inputs": "a"}),
            ("get", "/v1/models", None),
            ("get", "/metrics", None),
        ):
            refused = getattr(client, method)(path, **({"json": body} if body else {}))
            assert refused.status_code == 401 and refused.headers["www-authenticate"] == "Bearer"
            wrong = getattr(client, method)(
                path, headers={"Authorization": "Bearer " + KEY[:-1] + "x"}, **({"json": body} if body else {})
            )
            assert wrong.status_code == 401
            right = getattr(client, method)(
                path, headers={"Authorization": f"Bearer {KEY}"}, **({"json": body} if body else {})
            )
            assert right.status_code == 200
        assert KEY not in client.get("/metrics", headers={"Authorization": f"Bearer {KEY}"}).text
