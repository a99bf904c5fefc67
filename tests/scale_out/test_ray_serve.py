"""Ray Serve (a local cluster with 2 CPUs): `embedding_server` with 2 replicas answers the endpoints of
`keras-sentemb serve` with the vectors of `encode`, whichever replica takes a request."""

from concurrent.futures import ThreadPoolExecutor

import httpx
import numpy as np
import pytest
import ray
from ray import serve

from keras_sentemb.ray import embedding_server
from tests.conftest import make_tiny_encoder
from tests.server.served_app import free_port, wait_until_ready

TEXTS = ["the cat sat on the mat .", "a dog ran fast", "", "hello world !"]


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    path = tmp_path_factory.mktemp("ray-serve") / "tiny.keras"
    encoder = make_tiny_encoder(seed=9)
    encoder.save(path)
    port = free_port()
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    serve.start(http_options={"host": "127.0.0.1", "port": port})
    application = embedding_server(str(path), num_replicas=2, ray_actor_options={"num_cpus": 0.5})
    serve.run(application, route_prefix="/")
    url = f"http://127.0.0.1:{port}"
    with httpx.Client(base_url=url, timeout=60) as client:
        wait_until_ready(client.get, timeout=120)
    yield encoder, url
    serve.shutdown()
    ray.shutdown()


def test_two_replicas_run_and_answer_with_the_vectors_of_encode(served):
    encoder, url = served
    deployments = serve.status().applications["default"].deployments
    (deployment,) = deployments.values()
    assert deployment.replica_states.get("RUNNING") == 2

    def embed(texts):
        with httpx.Client(base_url=url, timeout=60) as client:
            return client.post("/v1/embeddings", json={"input": texts, "model": "tiny"}).json()

    with ThreadPoolExecutor(8) as pool:
        answers = list(pool.map(embed, [TEXTS[: 1 + i % 4] for i in range(32)]))
    for i, answer in enumerate(answers):
        vectors = np.array([item["embedding"] for item in answer["data"]], np.float32)
        np.testing.assert_allclose(vectors, encoder.encode(TEXTS[: 1 + i % 4]), atol=1e-5)


def test_the_same_refusals_come_back_through_ray(served):
    _, url = served
    response = httpx.post(f"{url}/embed", json={"inputs": [], "normalize": True})
    assert response.status_code == 422
    assert response.json()["error"] == "inputs: must hold at least one text, got an empty list"
