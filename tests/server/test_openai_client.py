"""The official `openai` client against the server: `client.embeddings.create` returns the vectors of
`encode` (float32, ≤ 1e-5), with its default base64 transport, as floats, and at `dimensions=128`."""

import numpy as np
import openai
import pytest

from tests.server.served_app import uvicorn_server

SENTENCES = ["A man is playing a guitar.", "The weather is lovely today.", "Κάποιος παίζει κιθάρα."]


@pytest.fixture(scope="module")
def client(minilm_encoder):
    with uvicorn_server(minilm_encoder, name="all-MiniLM-L6-v2") as url:
        yield openai.OpenAI(base_url=f"{url}/v1", api_key="unused", max_retries=0)


@pytest.mark.parametrize("encoding_format", [openai.NOT_GIVEN, "float"], ids=["client-default-base64", "float"])
def test_embeddings_create_returns_the_vectors_of_encode(client, minilm_encoder, encoding_format):
    response = client.embeddings.create(model="all-MiniLM-L6-v2", input=SENTENCES, encoding_format=encoding_format)
    vectors = np.array([item.embedding for item in response.data], np.float32)
    np.testing.assert_allclose(vectors, minilm_encoder.encode(SENTENCES), atol=1e-5)
    assert response.model == "all-MiniLM-L6-v2" and response.usage.prompt_tokens > len(SENTENCES) * 2


def test_dimensions_128_is_the_matryoshka_truncation_of_encode(client, minilm_encoder):
    response = client.embeddings.create(model="all-MiniLM-L6-v2", input=SENTENCES, dimensions=128)
    vectors = np.array([item.embedding for item in response.data], np.float32)
    assert vectors.shape == (3, 128)
    np.testing.assert_allclose(vectors, minilm_encoder.encode(SENTENCES, truncate_dim=128), atol=1e-5)


def test_the_client_raises_its_own_errors_for_our_refusals(client):
    with pytest.raises(openai.UnprocessableEntityError) as refused:
        client.embeddings.create(model="all-MiniLM-L6-v2", input=SENTENCES, dimensions=1000)
    assert "dimensions: 1000 is over all-MiniLM-L6-v2's 384" in str(refused.value)
    with pytest.raises(openai.NotFoundError):
        client.embeddings.create(model="text-embedding-3-small", input="hello")
