"""`keras-sentemb serve`: a stop by SIGTERM while 64 clients send loses no accepted request and exits
0; a request still unfinished at the graceful-shutdown deadline is cut (503), counted, and the exit status is 1;
its options and its port are checked before the model loads."""

import os
import re
import signal
import socket
import subprocess
import sys
import threading
import time

import httpx
import pytest

from keras_sentemb.apps.cli import main
from tests.conftest import make_tiny_encoder
from tests.server.served_app import free_port

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


@pytest.fixture(scope="module")
def model_file(tmp_path_factory):
    path = tmp_path_factory.mktemp("serve") / "tiny.keras"
    make_tiny_encoder(seed=8).save(path)
    return str(path)


def start_server(model_file, *options):
    """`keras-sentemb serve model_file` in a process of its own on a free port, ready; (process, url, the number
    of /health requests it answered on the way)."""
    port = free_port()
    server = subprocess.Popen(
        [sys.executable, "-m", "keras_sentemb.apps.cli", "serve", model_file, "--port", str(port), *options],
        cwd=REPO,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    url = f"http://127.0.0.1:{port}"
    deadline, health_checks = time.monotonic() + 120, 0
    while True:
        assert server.poll() is None, server.stdout.read()
        try:
            status = httpx.get(f"{url}/health").status_code
            health_checks += 1
            if status == 200:
                return server, url, health_checks
        except httpx.TransportError:
            pass
        assert time.monotonic() < deadline, "the server did not become ready"
        time.sleep(0.1)


class Clients:
    """`count` clients posting /embed in a loop until stopped; `received` holds every status answered."""

    def __init__(self, url, count=64):
        self.received, self.lock, self.stop = [], threading.Lock(), threading.Event()
        self.threads = [threading.Thread(target=self.client, args=(url, number)) for number in range(count)]
        for thread in self.threads:
            thread.start()

    def client(self, url, number):
        texts = ["the cat sat on the mat ."] * (1 + number % 8)
        with httpx.Client(base_url=url, timeout=60) as session:
            while not self.stop.is_set():
                try:
                    response = session.post("/embed", json={"inputs": texts})
                except httpx.TransportError:
                    return  # refused or closed before the server took the request: not accepted
                with self.lock:
                    self.received.append(response.status_code)
                assert len(response.json()) == len(texts)

    def join(self):
        self.stop.set()
        for thread in self.threads:
            thread.join(60)


def stop_counts(output):
    accepted, answered, cut = re.search(r"stopped: (\d+) requests accepted, (\d+) answered, (\d+) cut", output).groups()
    return int(accepted), int(answered), int(cut)


def test_sigterm_under_64_clients_answers_every_accepted_request_and_exits_0(model_file):
    server, url, health_checks = start_server(model_file, "--max-wait-ms", "5")
    try:
        clients = Clients(url)
        time.sleep(2.0)
        answered_before_stop = len(clients.received)
        server.send_signal(signal.SIGTERM)
        output, _ = server.communicate(timeout=120)
        clients.join()
    finally:
        if server.poll() is None:
            server.kill()
    assert server.returncode == 0, output[-3000:]
    accepted, answered, cut = stop_counts(output)
    assert accepted == answered == len(clients.received) + health_checks and cut == 0, output[-3000:]
    assert answered_before_stop > 64
    assert set(clients.received) == {200}


def test_sigterm_with_a_half_sent_request_exits_at_the_graceful_deadline_and_counts_it_cut(model_file):
    server, url, health_checks = start_server(
        model_file, "--max-wait-ms", "5", "--graceful-timeout", "2", "--read-timeout", "60"
    )
    host, port = url.removeprefix("http://").split(":")
    half_sent = socket.create_connection((host, int(port)), timeout=30)
    try:
        half_sent.sendall(
            b"POST /embed HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n"
        )
        half_sent.sendall(b'{"inputs": "the ca')
        clients = Clients(url)
        time.sleep(2.0)
        server.send_signal(signal.SIGTERM)
        signalled = time.monotonic()
        output, _ = server.communicate(timeout=60)
        stopped_after = time.monotonic() - signalled
        clients.join()
        answer = half_sent.recv(65536)
    finally:
        half_sent.close()
        if server.poll() is None:
            server.kill()
    assert server.returncode == 1, output[-3000:]
    assert stopped_after < 2 + 0.5, output[-3000:]  # gone by the deadline (+ the signal's delivery)
    accepted, answered, cut = stop_counts(output)
    assert cut == 1 and accepted == answered == len(clients.received) + health_checks + 1, output[-3000:]
    assert set(clients.received) == {200}
    assert answer.startswith(b"HTTP/1.1 503 ") and b"stopped before this request was answered" in answer
    assert "1 request(s) cut unfinished by the graceful-shutdown deadline (--graceful-timeout 2 s)" in output


def test_a_port_in_use_is_one_error_line_before_the_model_loads(capsys):
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        start = time.monotonic()
        assert main(["serve", "no-such-model.keras", "--port", str(port)]) == 2
        assert time.monotonic() - start < 1.0
    err = capsys.readouterr().err.strip()
    assert (
        err
        == f"keras-sentemb serve: error: --port {port}: cannot listen on 127.0.0.1:{port} (Address already in use); choose another port"
    )


@pytest.mark.parametrize(
    "options, message",
    [
        (["--port", "70000"], "--port must be in [1, 65535], got 70000"),
        (["--calibration", "x.txt"], "--calibration is for --precision int8 only"),
        (["--max-wait-ms", "-1"], "max_wait_ms must be a number in [0, 1000], got -1.0"),
        (["--max-texts", "0"], "max_texts must be a positive int, got 0"),
    ],
)
def test_bad_options_are_one_error_line_before_the_model_loads(options, message, capsys):
    assert main(["serve", "no-such-model.keras", *options]) == 2
    assert capsys.readouterr().err.strip() == f"keras-sentemb serve: error: {message}"


def test_an_api_key_file_is_checked_line_by_line_and_never_echoes_a_key(tmp_path, capsys):
    keys = tmp_path / "keys"
    keys.write_text("# team\nshort\n", encoding="utf-8")
    assert main(["serve", "no-such-model.keras", "--api-key-file", str(keys)]) == 2
    err = capsys.readouterr().err
    assert f"{keys}:2: a key of 5 characters; keys need 16 or more" in err and "short" not in err
    keys.write_bytes(b"0123456789abcdef\xff\n")
    assert main(["serve", "no-such-model.keras", "--api-key-file", str(keys)]) == 2
    assert f"{keys}:1: the API key file is not UTF-8" in capsys.readouterr().err
    assert main(["serve", "no-such-model.keras", "--api-key-file", str(tmp_path)]) == 2
    assert "the API key file must be a regular file" in capsys.readouterr().err
