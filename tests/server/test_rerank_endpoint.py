"""POST /rerank (text-embeddings-inference): a cross-encoder's scores of (query, text), best first, equal
to `predict_pairs`; raw logits on request; a server of an encoder has no /rerank, and the reverse."""

import numpy as np
import pytest

from tests.conftest import make_tiny_cross_encoder
from tests.server.served_app import ready_client

QUERY = "the cat"
TEXTS = ["a dog ran fast", "the cat sat on the mat .", "", "rain and storm"]


@pytest.fixture(scope="module")
def cross_encoder():
    model = make_tiny_cross_encoder(seed=2)
    model.score_activation = "sigmoid"
    return model


@pytest.fixture(scope="module")
def client(cross_encoder):
    with ready_client(cross_encoder, name="tiny-reranker") as client:
        yield client


def test_rerank_orders_the_texts_by_the_cross_encoder_score(client, cross_encoder):
    ranked = client.post("/rerank", json={"query": QUERY, "texts": TEXTS}).json()
    expected = cross_encoder.predict_pairs([QUERY] * len(TEXTS), TEXTS)
    assert [entry["index"] for entry in ranked] == list(np.argsort(-expected, kind="stable"))
    np.testing.assert_allclose([entry["score"] for entry in ranked], np.sort(expected)[::-1], atol=1e-6)
    assert all(set(entry) == {"index", "score"} for entry in ranked)


def test_raw_scores_are_the_logits_and_return_text_adds_each_text(client, cross_encoder):
    ranked = client.post(
        "/rerank", json={"query": QUERY, "texts": TEXTS, "raw_scores": True, "return_text": True}
    ).json()
    logits = cross_encoder.predict_rows(
        list(zip(*cross_encoder.pair_rows([QUERY.encode()] * 4, [t.encode() for t in TEXTS]))), 32, False
    )[:, 0]
    for entry in ranked:
        assert entry["text"] == TEXTS[entry["index"]]
        assert entry["score"] == pytest.approx(float(logits[entry["index"]]), abs=1e-5)


def test_truncate_false_refuses_a_pair_over_the_model_limit(client):
    long_text = " ".join(["dog"] * 30)
    response = client.post("/rerank", json={"query": QUERY, "texts": ["a dog", long_text], "truncate": False})
    assert response.status_code == 413
    assert response.json()["error"].startswith("texts[1]: with the query, longer than tiny-reranker's 16 tokens")


def test_a_reranker_server_has_no_embedding_routes(client):
    assert client.post("/embed", json={"inputs": "a"}).status_code == 404
    assert client.post("/v1/embeddings", json={"input": "a", "model": "tiny-reranker"}).status_code == 404
    assert client.get("/v1/models").json()["data"][0]["kind"] == "reranking"


def test_a_cross_encoder_of_several_labels_is_refused_at_start():
    from keras_sentemb.server.embedding_service import EmbeddingService, ModelCannotServe

    with pytest.raises(ModelCannotServe, match="cross-encoder of 3 labels; /rerank serves one score a pair"):
        EmbeddingService(make_tiny_cross_encoder(num_labels=3), name="nli")
