"""Through HTTP: requests of concurrent clients are merged into model batches, and each client gets the
vectors its texts have alone (`encode` of that request by itself, to float32 noise)."""

import re
from concurrent.futures import ThreadPoolExecutor

import httpx
import numpy as np

from tests.conftest import make_tiny_encoder
from tests.server.served_app import uvicorn_server

WORDS = ["the", "cat", "sat", "on", "mat", "dog", "ran", "fast", "rain", "storm", "hello", "world"]


def _requests(count, seed=0):
    """`count` requests of 1-8 texts of 1-14 words each: lengths that land in different length buckets."""
    rng = np.random.default_rng(seed)
    return [
        [" ".join(rng.choice(WORDS, size=rng.integers(1, 15))) for _ in range(rng.integers(1, 9))] for _ in range(count)
    ]


def test_concurrent_requests_share_batches_and_keep_their_own_vectors():
    encoder = make_tiny_encoder(seed=6)
    requests = _requests(24)
    with uvicorn_server(encoder, max_wait_ms=50) as url:

        def send(texts):
            with httpx.Client(base_url=url, timeout=60) as client:
                return client.post("/embed", json={"inputs": texts}).json()

        with ThreadPoolExecutor(12) as pool:
            answers = list(pool.map(send, requests))
        metrics = httpx.get(f"{url}/metrics").text
    for texts, answer in zip(requests, answers):
        np.testing.assert_allclose(np.array(answer, np.float32), encoder.encode(texts), atol=1e-5)
    batches = float(re.search(r"^keras_sentemb_batch_texts_count (\S+)$", metrics, re.M).group(1))
    texts = float(re.search(r"^keras_sentemb_batch_texts_sum (\S+)$", metrics, re.M).group(1))
    assert texts == sum(map(len, requests)) + 1  # every text, and the warm-up request's
    assert batches < len(requests) / 2, f"{len(requests)} requests ran in {batches:.0f} model calls"
