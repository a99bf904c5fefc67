"""A server past its queue answers 503 with Retry-After instead of queueing — never a hung connection —
while the requests it took are answered in full (how fast a 503 comes is benchmarks/serve_load.py's)."""

import time
from concurrent.futures import ThreadPoolExecutor

import httpx

from keras_sentemb.server import embedding_service
from tests.conftest import make_tiny_encoder
from tests.server.served_app import uvicorn_server


class SlowModel(embedding_service.EmbeddingService):
    """The tiny encoder, 0.3 s a model call: requests pile up behind it."""

    def run_rows(self, rows):
        time.sleep(0.3)
        return super().run_rows(rows)


def test_past_the_queue_a_request_gets_503_and_retry_after_and_the_rest_are_answered(monkeypatch):
    monkeypatch.setattr("tests.server.served_app.EmbeddingService", SlowModel)
    with uvicorn_server(make_tiny_encoder(seed=7), max_queued_texts=8, max_wait_ms=0) as url:

        def send(_):
            with httpx.Client(base_url=url, timeout=60) as client:
                response = client.post("/embed", json={"inputs": ["the cat sat"] * 4})
                return response.status_code, response.headers.get("retry-after")

        with ThreadPoolExecutor(16) as pool:
            answers = list(pool.map(send, range(16)))
    refused = [status for status, retry in answers if status == 503 and retry == "1"]
    answered = [status for status, _ in answers if status == 200]
    assert len(refused) + len(answered) == 16
    assert refused and len(answered) >= 3  # the one running and the two that fit the queue of 8 texts
