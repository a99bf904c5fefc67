"""`keras-sentemb serve FOLDER --backend openvino` of a Hugging Face folder: converted once, by a child process, into
a cache folder keyed by the model and the precision, and served from it by a process without TensorFlow; a second
start converts nothing; a changed folder is a new conversion."""

import os
import shutil
import signal
import subprocess
import sys
import time

import httpx
import numpy as np
import pytest

from keras_sentemb import SentenceEncoder
from keras_sentemb.server.openvino_cache import cache_folder, conversion_key
from tests.server.served_app import free_port

FOLDER = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "fixtures", "st_folders")
COMMAND = os.path.join(os.path.dirname(sys.executable), "keras-sentemb")


def serve_once(model, home, *options):
    """Starts `keras-sentemb serve model --backend openvino`, embeds two texts, checks its maps, stops it: (vectors,
    whether TensorFlow was mapped, the log)."""
    port = free_port()
    env = {**os.environ, "KERAS_SENTEMB_HOME": str(home)}
    server = subprocess.Popen(
        [COMMAND, "serve", model, "--backend", "openvino", "--port", str(port), *options],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    url, deadline = f"http://127.0.0.1:{port}", time.monotonic() + 180
    try:
        while True:
            assert server.poll() is None, server.stdout.read()
            try:
                if httpx.get(url + "/health").status_code == 200:
                    break
            except httpx.TransportError:
                pass
            assert time.monotonic() < deadline, "the server did not become ready"
            time.sleep(0.2)
        answer = httpx.post(
            url + "/v1/embeddings", json={"input": ["A cat sits.", "Zwei Hunde"], "model": "bert"}, timeout=60
        ).json()
        with open(f"/proc/{server.pid}/maps", encoding="utf-8") as f:
            mapped = any("site-packages/tensorflow/" in line or "/libtensorflow" in line for line in f)
    finally:
        server.send_signal(signal.SIGTERM)
        server.wait(60)
    return np.asarray([row["embedding"] for row in answer["data"]], np.float32), mapped, server.stdout.read()


def test_a_folder_is_converted_once_and_served_without_tensorflow(tmp_path):
    model = tmp_path / "bert"
    shutil.copytree(os.path.join(FOLDER, "bert_mean_normalize_old"), model)
    vectors, mapped, log = serve_once(str(model), tmp_path / "home")
    assert "converting" in log and not mapped
    expected = SentenceEncoder.from_pretrained(str(model)).encode(["A cat sits.", "Zwei Hunde"], backend="openvino")
    np.testing.assert_allclose(vectors, expected, atol=1e-5)
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("KERAS_SENTEMB_HOME", str(tmp_path / "home"))
        assert os.path.isdir(os.path.join(cache_folder(str(model), "float32"), "1"))

    again, mapped, log = serve_once(str(model), tmp_path / "home")
    assert "converting" not in log and "cached" in log and not mapped
    np.testing.assert_array_equal(again, vectors)


def test_the_key_changes_with_the_folder_the_precision_and_the_calibration(tmp_path):
    model = tmp_path / "bert"
    shutil.copytree(os.path.join(FOLDER, "bert_mean_normalize_old"), model)
    key = conversion_key(str(model), "float32")
    assert conversion_key(str(model), "int8") != key
    assert conversion_key(str(model), "int8", ["a", "b"]) != conversion_key(str(model), "int8")
    (model / "config.json").write_text((model / "config.json").read_text() + " ")
    assert conversion_key(str(model), "float32") != key
