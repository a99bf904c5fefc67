"""`keras-sentemb serve`: a stop by SIGTERM while 64 clients send loses no accepted request and exits
0; its options are checked before the model loads."""

import os
import re
import signal
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


def test_sigterm_under_64_clients_answers_every_accepted_request_and_exits_0(model_file):
    port = free_port()
    server = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "keras_sentemb.apps.cli",
            "serve",
            model_file,
            "--port",
            str(port),
            "--max-wait-ms",
            "5",
        ],
        cwd=REPO,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    url = f"http://127.0.0.1:{port}"
    received, lock, stop = [], threading.Lock(), threading.Event()
    try:
        deadline = time.monotonic() + 120
        while True:
            assert server.poll() is None, server.stdout.read()
            try:
                if httpx.get(f"{url}/health").status_code == 200:
                    received.append(200)
                    break
                received.append(503)
            except httpx.TransportError:
                pass
            assert time.monotonic() < deadline, "the server did not become ready"
            time.sleep(0.1)

        def client(number):
            texts = ["the cat sat on the mat ."] * (1 + number % 8)
            with httpx.Client(base_url=url, timeout=60) as session:
                while not stop.is_set():
                    try:
                        response = session.post("/embed", json={"inputs": texts})
                    except httpx.TransportError:
                        return  # refused or closed before the server took the request: not accepted
                    with lock:
                        received.append(response.status_code)
                    assert len(response.json()) == len(texts)

        clients = [threading.Thread(target=client, args=(number,)) for number in range(64)]
        for thread in clients:
            thread.start()
        time.sleep(2.0)
        answered_before_stop = len(received)
        server.send_signal(signal.SIGTERM)
        output, _ = server.communicate(timeout=120)
        stop.set()
        for thread in clients:
            thread.join(60)
    finally:
        if server.poll() is None:
            server.kill()
    assert server.returncode == 0, output[-3000:]
    accepted, answered = map(int, re.search(r"stopped: (\d+) requests accepted, (\d+) answered", output).groups())
    assert accepted == answered == len(received), output[-3000:]
    assert answered_before_stop > 64
    assert set(received) == {200, 503} or set(received) == {200}  # 503 only from /health before warm-up


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
