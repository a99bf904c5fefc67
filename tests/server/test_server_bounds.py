"""Every wait of the server has a bound: a client that never finishes its headers (silent, or slowloris) is
disconnected at the read deadline, a body that stops arriving is answered 408, a head over the size limit 431,
an idle keep-alive connection is closed — and a normal request is answered meanwhile."""

import socket
import time

import httpx
import pytest

from tests.conftest import make_tiny_encoder
from tests.server.served_app import uvicorn_server

READ_TIMEOUT_S = 1.0


@pytest.fixture(scope="module")
def server_url():
    with uvicorn_server(
        make_tiny_encoder(seed=4), read_timeout_s=READ_TIMEOUT_S, keep_alive_timeout_s=0.5, max_header_bytes=4096
    ) as url:
        yield url


def connect(url):
    host, port = url.removeprefix("http://").split(":")
    sock = socket.create_connection((host, int(port)), timeout=10)
    return sock


def closed_after(sock, seconds):
    """Whether the server closes `sock` within `seconds` (reads until EOF; what it sent before is returned)."""
    sock.settimeout(seconds)
    received = b""
    try:
        while chunk := sock.recv(65536):
            received += chunk
    except TimeoutError:
        return False, received
    except ConnectionResetError:
        pass
    return True, received


def test_a_silent_connection_is_closed_at_the_read_deadline(server_url):
    sock = connect(server_url)
    start = time.monotonic()
    closed, _ = closed_after(sock, READ_TIMEOUT_S + 5)
    assert closed and READ_TIMEOUT_S * 0.8 <= time.monotonic() - start < READ_TIMEOUT_S + 2
    sock.close()


def test_a_slowloris_client_is_closed_though_it_keeps_sending_header_bytes(server_url):
    sock = connect(server_url)
    sock.sendall(b"POST /embed HTTP/1.1\r\nHost: x\r\n")
    start = time.monotonic()
    closed = False
    for number in range(40):  # a header line every 0.1 s: never complete
        try:
            sock.sendall(b"X-Slow-%d: 1\r\n" % number)
        except OSError:
            closed = True
            break
        time.sleep(0.1)
    if not closed:
        closed, _ = closed_after(sock, 2)
    assert closed and time.monotonic() - start < READ_TIMEOUT_S + 2.5
    sock.close()


def test_a_body_that_stops_arriving_is_answered_408(server_url):
    sock = connect(server_url)
    sock.sendall(b"POST /embed HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n")
    sock.sendall(b'{"inputs": "a ca')
    start = time.monotonic()
    closed, received = closed_after(sock, READ_TIMEOUT_S + 5)
    assert received.startswith(b"HTTP/1.1 408 ")
    assert b"did not arrive within 1 s (--read-timeout)" in received
    assert time.monotonic() - start < READ_TIMEOUT_S + 2
    sock.close()


def test_a_head_over_the_limit_is_answered_431_and_closed(server_url):
    sock = connect(server_url)
    sock.sendall(b"GET /health HTTP/1.1\r\nHost: x\r\nX-Big: " + b"a" * 8000 + b"\r\n\r\n")
    closed, received = closed_after(sock, 5)
    assert closed and received.startswith(b"HTTP/1.1 431 ")
    assert received.endswith(b"the request headers are over this server's 4096 bytes")
    sock.close()


def test_an_idle_keep_alive_connection_is_closed_and_a_normal_client_is_answered(server_url):
    sock = connect(server_url)
    sock.sendall(b"GET /health HTTP/1.1\r\nHost: x\r\n\r\n")
    closed, received = closed_after(sock, 5)
    assert received.startswith(b"HTTP/1.1 200 ") and closed  # the keep-alive timeout (0.5 s) closed it
    sock.close()
    with httpx.Client(base_url=server_url, timeout=10) as client:
        for _ in range(3):
            response = client.post("/embed", json={"inputs": ["the cat sat", "a dog ran"]})
            assert response.status_code == 200 and len(response.json()) == 2
