"""A TF Serving bundle: several models in TF Serving's layout with `models.config` and warmup
requests for every signature. The config and the warmup file parse with tensorflow-serving-api;
each warmup request, replayed against its SavedModel in a process that imports only tensorflow
and tensorflow_text, answers like `encode` / `hash` / `BinaryIndex.search`; the REST bodies of
docs/serving.md map onto the signatures as TF Serving's REST API reads them."""

import json
import os
import re
import subprocess
import sys

import keras
import numpy as np
import pytest
import tensorflow as tf
from google.protobuf import text_format
from tensorflow_serving.config import model_server_config_pb2

from keras_sentemb.apps.cli import main
from keras_sentemb.export import export_serving_bundle, read_warmup_requests
from keras_sentemb.export.serving_warmup import WARMUP_FILE, WARMUP_K, WARMUP_TEXTS
from keras_sentemb.layers import SemanticHashing
from keras_sentemb.models import HashedEncoder, MultiVectorEncoder, SparseEncoder
from keras_sentemb.retrieval import BinaryIndex
from tests.conftest import make_tiny_cross_encoder, make_tiny_encoder
from tests.fixture_folders import MULTI_VECTOR_FOLDERS, SPARSE_FOLDERS
from tests.models.test_bilstm_sra import tiny_sra
from tests.models.test_dse import make_dse
from tests.models.test_inferlite import tiny_inferlite

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CORPUS = ["the cat sat on the mat", "a dog ran fast", "rain and storm", "hello world", "the mat"]
SIGNATURES = {"tiny": ["serving_default"], "tiny-hash": ["embed_and_hash", "hash", "search", "serving_default"]}

REPLAY = """
import json, sys
import tensorflow as tf, tensorflow_text  # noqa: F401
assert not any(name.startswith(("keras_sentemb", "tensorflow_serving")) for name in sys.modules)
answers = []
for folder, signature, inputs in json.load(sys.stdin):
    function = tf.saved_model.load(folder).signatures[signature]
    tensors = {k: tf.constant(v, dtype=tf.string if isinstance(v, list) else tf.int32) for k, v in inputs.items()}
    answers.append({k: v.numpy().tolist() for k, v in function(**tensors).items()})
print(json.dumps(answers))
"""


@pytest.fixture(scope="module")
def bundle(tmp_path_factory):
    folder = tmp_path_factory.mktemp("bundle")
    encoder = make_tiny_encoder(seed=5)
    keras.utils.set_random_seed(2)
    hashed = HashedEncoder(make_tiny_encoder(seed=6), SemanticHashing(64))
    codes = hashed.hash(CORPUS)
    ids = np.arange(len(CORPUS), dtype=np.int64) + 100
    config = export_serving_bundle(
        {"tiny": encoder, "tiny-hash": hashed}, folder, version=3, code_tables={"tiny-hash": (codes, ids)}
    )
    return folder, config, encoder, hashed, codes, ids


def test_models_config_lists_every_model_under_the_mount_path(bundle):
    folder, config, *_ = bundle
    assert config == os.path.join(str(folder), "models.config")
    parsed = text_format.Parse(open(config, encoding="utf-8").read(), model_server_config_pb2.ModelServerConfig())
    served = {c.name: (c.base_path, c.model_platform) for c in parsed.model_config_list.config}
    assert served == {"tiny": ("/models/tiny", "tensorflow"), "tiny-hash": ("/models/tiny-hash", "tensorflow")}
    assert sorted(os.listdir(folder)) == ["models.config", "tiny", "tiny-hash"]
    assert os.listdir(folder / "tiny") == ["3"]


def test_warmup_requests_cover_every_signature_of_every_model(bundle):
    folder = bundle[0]
    for name, signatures in SIGNATURES.items():
        requests = read_warmup_requests(folder / name / "3" / WARMUP_FILE)
        assert [r.model_spec.signature_name for r in requests] == signatures
        assert {r.model_spec.name for r in requests} == {name}
        texts = [t.decode() for t in tf.make_ndarray(requests[-1].inputs["texts"])]
        assert texts == list(WARMUP_TEXTS)


def replay_warmups(version_folders):
    """Every warmup request of the SavedModels in `version_folders`, replayed in a fresh
    process that imports only tensorflow and tensorflow_text: `(calls, answers)`, a call being
    `[folder, signature, inputs]`."""
    calls = []
    for version_folder in version_folders:
        for request in read_warmup_requests(os.path.join(version_folder, WARMUP_FILE)):
            inputs = {}
            for key, proto in request.inputs.items():
                value = tf.make_ndarray(proto)
                inputs[key] = [t.decode() for t in value] if value.dtype == object else int(value)
            calls.append([str(version_folder), request.model_spec.signature_name, inputs])
    result = subprocess.run(
        [sys.executable, "-c", REPLAY],
        input=json.dumps(calls),
        capture_output=True,
        text=True,
        env={**os.environ, "TF_CPP_MIN_LOG_LEVEL": "3"},
        timeout=300,
    )
    assert result.returncode == 0, result.stderr[-3000:]
    return calls, json.loads(result.stdout.strip().splitlines()[-1])


def test_replayed_warmup_requests_answer_like_the_python_api(bundle):
    folder, _, encoder, hashed, codes, ids = bundle
    expected = []
    calls, answers = replay_warmups([folder / name / "3" for name in SIGNATURES])
    texts = list(WARMUP_TEXTS)
    index = BinaryIndex(64, backend="numpy")
    index.add(codes, ids)
    distances, neighbours = index.search(hashed.hash(texts), WARMUP_K)
    for (folder_name, signature, _), answer in zip(calls, answers):
        model = encoder if folder_name.endswith(os.path.join("tiny", "3")) else hashed
        if "embedding" in answer:
            np.testing.assert_allclose(np.array(answer["embedding"]), model.encode(texts), atol=1e-5)
        if "codes" in answer:
            np.testing.assert_array_equal(np.array(answer["codes"], np.uint8), hashed.hash(texts))
        if signature == "search":
            np.testing.assert_array_equal(np.array(answer["ids"]), neighbours)
            np.testing.assert_array_equal(np.array(answer["distances"]), distances)
        expected.append(signature)
    assert sorted(expected) == sorted(s for signatures in SIGNATURES.values() for s in signatures)


def test_pair_and_word_models_in_a_bundle_replay_their_warmups_like_the_python_api(tmp_path):
    cross_encoder = make_tiny_cross_encoder(num_labels=2, seed=3)
    dse = make_dse(num_labels=1, seed=2)
    dse.head.output_layer.kernel.assign(np.random.default_rng(0).normal(size=dse.head.output_layer.kernel.shape))
    word_models = {"inferlite": tiny_inferlite(), "bilstm-sra": tiny_sra()}
    models = {"ce": cross_encoder, "dse": dse, **word_models}
    export_serving_bundle(models, tmp_path, version=1)
    calls, answers = replay_warmups([tmp_path / name / "1" for name in sorted(models)])
    assert [(os.path.basename(os.path.dirname(folder)), signature) for folder, signature, _ in calls] == [
        ("bilstm-sra", "serving_default"),
        ("ce", "serving_default"),
        ("dse", "score"),
        ("dse", "serving_default"),
        ("inferlite", "serving_default"),
    ]
    texts = list(WARMUP_TEXTS)
    assert [inputs for _, _, inputs in calls][1:3] == [{"texts_a": texts, "texts_b": texts}] * 2
    bilstm, ce_answer, dse_score, dse_embed, inferlite = answers
    np.testing.assert_allclose(ce_answer["scores"], cross_encoder.predict_pairs(texts, texts), atol=1e-5)
    np.testing.assert_allclose(np.array(dse_score["scores"])[:, 0], dse.predict_pairs(texts, texts), atol=1e-4)
    np.testing.assert_allclose(dse_embed["embedding"], dse.embed(texts), atol=1e-5)
    np.testing.assert_allclose(bilstm["embedding"], word_models["bilstm-sra"].encode(texts), atol=1e-5)
    np.testing.assert_allclose(inferlite["embedding"], word_models["inferlite"].encode(texts), atol=1e-5)


def rest_bodies(page="serving.md"):
    """The REST request bodies of a page of docs/ (```json blocks that follow a `POST` line)."""
    text = open(os.path.join(REPO, "docs", page), encoding="utf-8").read()
    return [
        (model, json.loads(body))
        for model, body in re.findall(r"POST /v1/models/([a-z0-9._-]+):predict[^\n]*\n\s*```json\n(.*?)```", text, re.S)
    ]


def rest_to_inputs(body, function):
    """TF Serving's REST semantics: `instances` (row format: one value, or one object of named
    values, per example) or `inputs` (columnar: one value, or named values) -> named tensors."""
    names = [spec.name for spec in function.structured_input_signature[1].values()]
    if "instances" in body:
        rows = body["instances"]
        columns = {n: [row[n] for row in rows] for n in names} if isinstance(rows[0], dict) else {names[0]: rows}
    else:
        columns = body["inputs"] if isinstance(body["inputs"], dict) else {names[0]: body["inputs"]}
    specs = function.structured_input_signature[1]
    return {n: tf.constant(v, dtype=specs[n].dtype) for n, v in columns.items()}


def test_the_rest_bodies_of_the_docs_map_onto_the_signatures(bundle):
    folder, _, encoder, hashed, *_ = bundle
    bodies = rest_bodies()
    assert len(bodies) == 3 and {"instances", "inputs"} <= {key for _, body in bodies for key in body}
    models = {"minilm-l6": folder / "tiny" / "3", "minilm-l6-hash256": folder / "tiny-hash" / "3"}  # tiny stand-ins
    for model, body in bodies:
        function = tf.saved_model.load(str(models[model])).signatures[body.get("signature_name", "serving_default")]
        outputs = function(**rest_to_inputs(body, function))
        assert set(outputs) and all(v.shape[0] >= 1 for v in outputs.values()), (model, body)


def test_the_command_line_writes_a_bundle(tmp_path, capsys):
    path = tmp_path / "tiny.keras"
    make_tiny_encoder(seed=5).save(path)
    assert main(["export", "--serving", str(tmp_path / "serving"), str(path), "--version", "2"]) == 0
    assert "tiny (version 2)" in capsys.readouterr().out
    assert (tmp_path / "serving" / "tiny" / "2" / WARMUP_FILE).is_file()
    assert (tmp_path / "serving" / "models.config").is_file()
    assert main(["export", str(tmp_path / "a"), str(tmp_path / "b")]) == 2
    assert "use --serving DIR" in capsys.readouterr().err


def test_colbert_and_splade_models_in_a_bundle_replay_their_warmups_like_the_python_api(tmp_path):
    """A ColBERT entry serves both sides under one name (`query`, `document` = `serving_default`), a SPLADE entry
    its documents' side; each warmup request answers as `encode_query` / `encode_document`."""
    colbert = MultiVectorEncoder.from_pretrained(os.path.join(MULTI_VECTOR_FOLDERS, "bert_colbert"))
    splade = SparseEncoder.from_pretrained(os.path.join(SPARSE_FOLDERS, "bert_splade_max"))
    export_serving_bundle({"colbert": colbert, "splade": splade}, tmp_path, version=1)
    calls, answers = replay_warmups([tmp_path / "colbert" / "1", tmp_path / "splade" / "1"])
    served = [(os.path.basename(os.path.dirname(folder)), signature) for folder, signature, _ in calls]
    assert served == [
        ("colbert", "document"),
        ("colbert", "query"),
        ("colbert", "serving_default"),
        ("splade", "serving_default"),
    ]
    texts = list(WARMUP_TEXTS)
    expected = {"document": colbert.encode_document(texts), "query": colbert.encode_query(texts)}
    expected["serving_default"] = expected["document"]
    for (_, signature), answer in zip(served[:3], answers[:3]):
        vectors, counts = np.array(answer["vectors"], np.float32), answer["token_counts"]
        assert counts == [len(rows) for rows in expected[signature]], signature
        for row, count, rows in zip(vectors, counts, expected[signature]):
            np.testing.assert_allclose(row[:count], rows, atol=1e-5, err_msg=signature)
    ((model, body),) = rest_bodies("late_interaction.md")
    function = tf.saved_model.load(str(tmp_path / model / "1")).signatures[body["signature_name"]]
    outputs = function(**rest_to_inputs(body, function))
    rows = [v[:n] for v, n in zip(outputs["vectors"].numpy(), outputs["token_counts"].numpy())]
    np.testing.assert_allclose(np.concatenate(rows), np.concatenate(colbert.encode_query(body["instances"])), atol=1e-5)
    sparse = splade.encode_document(texts).toarray()
    indices, values = np.array(answers[3]["indices"]), np.array(answers[3]["values"], np.float32)
    served_rows = np.zeros_like(sparse)
    for row, (ids, weights) in enumerate(zip(indices, values)):
        served_rows[row, ids[ids >= 0]] = weights[ids >= 0]
    np.testing.assert_allclose(served_rows, sparse, atol=1e-5)
