"""`keras-sentemb serve FOLDER` of an exported OpenVINO folder, and of a LiteRT file with the tokenizer outside: a
process with no TensorFlow library mapped (/proc/PID/maps), whose /v1/embeddings and /embed answer the vectors the exported model gave, and which stops on
SIGTERM with status 0. Runs in the suite and in the venv without TensorFlow (`make test-lean`)."""

import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.request

import numpy as np
import pytest

FIXTURES = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "fixtures", "exported_models")
COMMAND = os.path.join(os.path.dirname(sys.executable), "keras-sentemb")


def free_port():
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def post(url, body):
    request = urllib.request.Request(url, json.dumps(body).encode(), {"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=30) as response:
        return json.loads(response.read())


@pytest.fixture(scope="module", params=["qwen3_left_padded", "qwen3_left_padded.tflite"], ids=["openvino", "litert"])
def server(request):
    port = free_port()
    folder = os.path.join(FIXTURES, request.param)
    process = subprocess.Popen(
        [COMMAND, "serve", folder, "--port", str(port)], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
    )
    url, deadline = f"http://127.0.0.1:{port}", time.monotonic() + 60
    while True:
        try:
            with urllib.request.urlopen(url + "/health", timeout=5):
                break
        except OSError:
            if process.poll() is not None or time.monotonic() > deadline:
                process.kill()
                pytest.fail(f"the server did not start: {process.stdout.read()}")
            time.sleep(0.1)
    yield process, url, request.param
    if process.poll() is None:
        process.kill()
        process.wait()


def reference(name, key):
    path = os.path.join(FIXTURES, f"{name}.expected.json" if name.endswith(".tflite") else f"{name}/expected.json")
    with open(path, encoding="utf-8") as f:
        document = json.load(f)
    return document["texts"], np.asarray(document["vectors"][key], np.float32)


def test_no_tensorflow_library_is_mapped_into_the_serving_process(server):
    process, _, name = server
    with open(f"/proc/{process.pid}/maps", encoding="utf-8") as f:
        mapped = {line.split()[-1] for line in f if "/" in line}
    # OpenVINO's own readers of TensorFlow graphs (openvino/frontend/tensorflow/, libopenvino_tensorflow_frontend)
    # are not TensorFlow
    packages = r"site-packages/(tensorflow|tensorflow_text|tf_keras|keras|keras_hub)/|/libtensorflow"
    tensorflow = [path for path in mapped if re.search(packages, path)]
    assert tensorflow == []
    assert any(("/ai_edge_litert/" if name.endswith(".tflite") else "/openvino/") in path for path in mapped)


def test_openai_embeddings_are_the_exported_vectors(server):
    _, url, name = server
    texts, vectors = reference(name, "none")
    answer = post(url + "/v1/embeddings", {"input": texts, "model": "qwen3_left_padded"})
    got = np.asarray([row["embedding"] for row in answer["data"]], np.float32)
    np.testing.assert_allclose(got, vectors, atol=1e-5)


def test_tei_embed_with_a_named_prompt_is_the_exported_query_vectors(server):
    _, url, name = server
    texts, vectors = reference(name, "prompt:query")
    got = np.asarray(post(url + "/embed", {"inputs": texts, "prompt_name": "query"}), np.float32)
    np.testing.assert_allclose(got, vectors, atol=1e-5)


def test_sigterm_stops_it_with_status_0(server):
    process, _, _ = server
    process.send_signal(signal.SIGTERM)
    assert process.wait(timeout=30) == 0
    assert "stopped: " in process.stdout.read()


@pytest.mark.parametrize(
    "edit, message",
    [
        (lambda settings: settings["packing"].update(padding_side="up"), "packing.padding_side must be left or right"),
        (lambda settings: settings.pop("packing"), "no 'packing' key: .*export it again"),
        (lambda settings: settings.update(precision="int4"), "precision must be one of"),
    ],
    ids=["bad padding side", "an old export", "an unknown precision"],
)
def test_a_bad_exported_folder_is_one_line_and_exit_2(tmp_path, edit, message):
    folder = tmp_path / "model" / "1"
    shutil.copytree(os.path.join(FIXTURES, "bert_prompts", "1"), folder)
    settings_file = folder / "keras_sentemb_openvino.json"
    settings = json.loads(settings_file.read_text())
    edit(settings)
    settings_file.write_text(json.dumps(settings))
    done = subprocess.run(
        [COMMAND, "serve", str(tmp_path / "model"), "--port", str(free_port())],
        capture_output=True,
        text=True,
        timeout=60,
    )
    lines = [line for line in done.stderr.splitlines() if line.strip()]
    assert done.returncode == 2 and len(lines) == 1, done.stderr
    assert lines[0].startswith("keras-sentemb serve: error: ") and re.search(message, lines[0])
    assert str(settings_file) in lines[0]


def test_a_litert_file_with_the_tokenizer_inside_is_refused_in_one_line(tmp_path):
    from keras_sentemb.runtime.litert_metadata import METADATA_NAME, read_metadata, with_metadata

    data = open(os.path.join(FIXTURES, "bert_prompts.tflite"), "rb").read()
    card = json.loads(read_metadata(data, METADATA_NAME))
    card["tokenizer"]["place"] = "inside"
    path = tmp_path / "inside.tflite"
    path.write_bytes(with_metadata(data, METADATA_NAME, json.dumps(card).encode()))
    done = subprocess.run(
        [COMMAND, "serve", str(path), "--port", str(free_port())], capture_output=True, text=True, timeout=60
    )
    lines = [line for line in done.stderr.splitlines() if line.strip()]
    assert done.returncode == 2 and len(lines) == 1, done.stderr
    assert "its tokenizer is inside" in lines[0] and "--tokenizer outside" in lines[0]
