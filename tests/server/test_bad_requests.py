"""Hostile requests: each is answered 400, 413 or 422 with one JSON error naming the field — never a
500, never a dead worker (the same server answers a good request after every one of them)."""

import numpy as np
import pytest

from tests.conftest import make_tiny_encoder
from tests.server.served_app import ready_client

MAX_BYTES = 1 << 20


@pytest.fixture(scope="module")
def encoder():
    return make_tiny_encoder(seed=4)


@pytest.fixture(scope="module")
def client(encoder):
    with ready_client(encoder, max_texts=64, max_request_bytes=MAX_BYTES) as client:
        yield client


def _openai(**fields):
    return {"input": "a dog", "model": "tiny", **fields}


# (id, path, raw body, status, field or None, words the message holds)
BAD_REQUESTS = [
    ("malformed JSON", "/v1/embeddings", b'{"input": "a", "model": ', 400, None, "not valid JSON"),
    ("invalid UTF-8", "/v1/embeddings", b'{"input": "\xff\xfe", "model": "tiny"}', 400, None, "not valid UTF-8"),
    ("lone surrogate", "/embed", b'{"inputs": "\\ud800"}', 400, None, "not valid JSON"),
    ("NaN literal", "/embed", b'{"inputs": "a", "dimensions": NaN}', 400, None, "not valid JSON"),
    ("nested 2,000 deep", "/embed", b"[" * 2000 + b"]" * 2000, 400, None, "depth limit"),
    ("an array body", "/embed", b'["a"]', 422, None, "must be a JSON object, got an array"),
    ("input missing", "/v1/embeddings", b'{"model": "tiny"}', 422, "input", "required"),
    ("input a number", "/v1/embeddings", b'{"input": 3, "model": "tiny"}', 422, "input", "got a number"),
    ("input empty list", "/v1/embeddings", b'{"input": [], "model": "tiny"}', 422, "input", "at least one text"),
    ("token ids", "/v1/embeddings", b'{"input": [101, 2023], "model": "tiny"}', 422, "input", "token-id input"),
    (
        "token id lists",
        "/v1/embeddings",
        b'{"input": [[101], [2023]], "model": "tiny"}',
        422,
        "input",
        "token-id input",
    ),
    ("a null text", "/v1/embeddings", b'{"input": ["a", null], "model": "tiny"}', 422, "input[1]", "got null"),
    ("model a number", "/v1/embeddings", b'{"input": "a", "model": 7}', 422, "model", "valid string"),
    (
        "unknown field",
        "/v1/embeddings",
        b'{"input": "a", "model": "tiny", "temperature": 0}',
        422,
        "temperature",
        "unknown field",
    ),
    (
        "format int8",
        "/v1/embeddings",
        b'{"input": "a", "model": "tiny", "encoding_format": "int8"}',
        422,
        "encoding_format",
        "'float' or 'base64'",
    ),
    (
        "dimensions 0",
        "/v1/embeddings",
        b'{"input": "a", "model": "tiny", "dimensions": 0}',
        422,
        "dimensions",
        "greater than or equal to 1",
    ),
    (
        "dimensions a string",
        "/v1/embeddings",
        b'{"input": "a", "model": "tiny", "dimensions": "8"}',
        422,
        "dimensions",
        "valid integer",
    ),
    ("dimensions true", "/embed", b'{"inputs": "a", "dimensions": true}', 422, "dimensions", "valid integer"),
    ("normalize a string", "/embed", b'{"inputs": "a", "normalize": "yes"}', 422, "normalize", "valid boolean"),
    (
        "truncate left",
        "/embed",
        b'{"inputs": "a", "truncation_direction": "Left"}',
        422,
        "truncation_direction",
        "'Right'",
    ),
    (
        "chunking overlap = size",
        "/embed",
        b'{"inputs": "a", "chunking": {"size": 4, "overlap": 4}}',
        422,
        "chunking",
        "overlap must be in [0, size=4)",
    ),
    (
        "chunking unknown key",
        "/embed",
        b'{"inputs": "a", "chunking": {"window": 4}}',
        422,
        "chunking.window",
        "unknown field (the fields here: size, overlap,",
    ),
    (
        "chunking pooling null",
        "/embed",
        b'{"inputs": "a", "chunking": {"pooling": null}}',
        422,
        "chunking.pooling",
        "'mean', 'max' or 'first'",
    ),
    ("bits without binary", "/embed", b'{"inputs": "a", "bits": 16}', 422, "bits", "only with binary=true"),
    (
        "codes of a truncated vector",
        "/embed",
        b'{"inputs": "a", "binary": true, "dimensions": 8}',
        422,
        "binary",
        "no hashing layer",
    ),
    ("rerank on an encoder", "/rerank", b'{"query": "a", "texts": ["b"]}', 404, None, "Not Found"),
]


@pytest.mark.parametrize(
    "path, body, status, field, words", [case[1:] for case in BAD_REQUESTS], ids=[case[0] for case in BAD_REQUESTS]
)
def test_a_bad_request_gets_its_status_and_one_error_naming_the_field(client, path, body, status, field, words):
    response = client.post(path, content=body, headers={"Content-Type": "application/json"})
    assert response.status_code == status, response.text
    if path == "/rerank":
        return  # no such route on an encoder's server: Starlette's plain 404
    error = response.json()["error"]
    message = error["message"] if isinstance(error, dict) else error
    assert words in message
    if isinstance(error, dict):
        assert error["param"] == field
    elif field:
        assert message.startswith(f"{field}:")
    assert client.post("/embed", json={"inputs": "a dog"}).status_code == 200  # the worker lives on


def test_more_texts_than_the_limit_is_413_before_any_is_tokenised(client):
    response = client.post("/v1/embeddings", json=_openai(input=["a"] * 100_000))
    assert response.status_code == 413
    assert (
        response.json()["error"]["message"]
        == "input: 100000 texts; this server takes at most 64 a request (--max-texts)"
    )


def test_a_body_over_the_byte_limit_is_413_by_its_declared_length_or_as_it_streams(client):
    huge = _openai(input="cat " * (MAX_BYTES // 4 + 10))
    response = client.post("/v1/embeddings", json=huge)
    assert response.status_code == 413 and "over this server's 1048576" in response.json()["error"]["message"]
    assert response.headers["connection"] == "close"  # the unread rest of the body cannot be taken for a request

    def chunks():  # no Content-Length: refused while it streams in
        yield b'{"input": "'
        for _ in range(40):
            yield b"cat " * 8192
        yield b'", "model": "tiny"}'

    response = client.post("/v1/embeddings", content=chunks())
    assert response.status_code == 413 and "over this server's 1048576 bytes" in response.json()["error"]["message"]


def test_a_long_text_under_the_byte_limit_is_truncated_as_encode_does(client, encoder):
    text = "the cat sat . " * 50_000  # 700 KB: within the 1 MiB body limit
    vectors = np.array(client.post("/embed", json={"inputs": [text]}).json(), np.float32)
    np.testing.assert_allclose(vectors, encoder.encode([text]), atol=1e-6)


def test_a_wrong_method_or_path_is_a_plain_404_or_405(client):
    assert client.get("/v1/embeddings").status_code == 405
    assert client.post("/v2/embeddings", json={}).status_code == 404
