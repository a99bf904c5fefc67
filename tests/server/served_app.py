"""A model behind the server's app, in this process: Starlette's TestClient, or uvicorn on a free port."""

import contextlib
import socket
import threading
import time

import uvicorn
from starlette.testclient import TestClient

from keras_sentemb.server.embedding_service import EmbeddingService
from keras_sentemb.server.http_app import create_app
from keras_sentemb.server.serve_command import bounded_uvicorn_config
from keras_sentemb.server.server_settings import ServerSettings


def wait_until_ready(get, timeout=60):
    """Polls GET /health through `get` until it answers 200 (the warm-up request was answered)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if get("/health").status_code == 200:
            return
        time.sleep(0.02)
    raise TimeoutError("the server did not become ready")


@contextlib.contextmanager
def ready_client(model, name="tiny", service_options=None, **settings):
    """A TestClient of the app serving `model` under `name`, ready (its lifespan started, warmed up)."""
    service = EmbeddingService(model, name=name, **(service_options or {}))
    app = create_app(service, ServerSettings(**settings))
    with TestClient(app, raise_server_exceptions=False) as client:
        wait_until_ready(client.get)
        yield client


def free_port():
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@contextlib.contextmanager
def uvicorn_server(model, name="tiny", **settings):
    """uvicorn serving `model` on a free local port in a thread, configured as `keras-sentemb serve` configures
    it (`bounded_uvicorn_config`); yields its base URL."""
    import httpx

    settings = ServerSettings(**settings)
    app = create_app(EmbeddingService(model, name=name), settings)
    port = free_port()
    server = uvicorn.Server(bounded_uvicorn_config(app, settings, "127.0.0.1", port, log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 60
    while not server.started and time.monotonic() < deadline:
        time.sleep(0.01)
    with httpx.Client(base_url=url) as client:
        wait_until_ready(client.get)
    try:
        yield url
    finally:
        server.should_exit = True
        thread.join(30)
