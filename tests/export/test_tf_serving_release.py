"""TF Serving's TensorFlow loads what we export: every family's raw-string SavedModel (and the SavedModel of
each tokenizer the sentence-transformers parity test serves), the `chunks` signature, a hashed model's `hash` and a
ColBERT model's `query` and `document` signatures, written with our TensorFlow (2.21), are loaded in a venv with TF
Serving's newest release's TensorFlow (2.20 + TF Text 2.20.1, `make tf-serving-venv`) and answer as `encode` /
`hash` / `encode_query` / `encode_document` do — so that an
op newer than TF Serving's cannot slip into an export unseen. The process has TensorFlow and TF Text alone
(no keras_sentemb to import): this is also the parity test's "strings in, `encode`'s vectors out without the
package", on its sentences."""

import json
import os
import subprocess
import textwrap

import numpy as np
import pytest

from keras_sentemb.chunking import Chunking
from keras_sentemb.export import export_saved_model
from keras_sentemb.layers.semantic_hashing import SemanticHashing
from keras_sentemb.models.hashed_encoder import HashedEncoder
from keras_sentemb.models.multi_vector_encoder import MultiVectorEncoder
from tests.conftest import make_tiny_encoder
from tests.families.runtime_matrix import MATRIX_TEXTS
from tests.families.shared_exports import shared_saved_model
from tests.families.test_family_math import FOLDERS
from tests.fixture_folders import MULTI_VECTOR_FOLDERS
from tests.pretrained.test_sentence_transformers_parity import SENTENCES, SERVED, encoder_of

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TF_SERVING_PYTHON = os.environ.get(
    "KERAS_SENTEMB_TF_SERVING_PYTHON", os.path.join(REPO, ".tf-serving-venv", "bin", "python")
)
# every family's folder of the matrix and each tokenizer the parity test serves (Metaspace, Unigram, ...)
SAVED_MODELS = sorted(set(FOLDERS.values()) | set(SERVED))
CHUNKING = Chunking(size=8, overlap=3, pooling=None)
COLBERT_FOLDERS = ["bert_colbert", "modernbert_colbert"]
LONG = " ".join(["the cat sat on the mat .", "a dog ran fast !", "hello world"] * 5)

SERVE = textwrap.dedent(
    """
    import json, sys
    import numpy as np
    import tensorflow as tf
    import tensorflow_text  # registers the tokenizer's ops
    texts = json.load(open(sys.argv[1]))
    outputs = {}
    for name, folder, signature in json.load(open(sys.argv[2])):
        answer = tf.saved_model.load(folder).signatures[signature](texts=tf.constant(texts))
        outputs.update({f"{name}/{key}": value.numpy() for key, value in answer.items()})
    np.savez(sys.argv[3], **outputs)
    loaded = sorted(m for m in sys.modules if m.startswith("keras_sentemb"))
    print(json.dumps({"tensorflow": tf.__version__, "tensorflow_text": tensorflow_text.__version__, "ours": loaded}))
    """
)


def _tf_serving_python():
    if not os.path.exists(TF_SERVING_PYTHON):
        if os.environ.get("KERAS_SENTEMB_REQUIRE_PRETRAINED") == "1":
            pytest.fail(f"{TF_SERVING_PYTHON} is missing: make tf-serving-venv")
        pytest.skip("TF Serving's TensorFlow is not installed (make tf-serving-venv)")
    return TF_SERVING_PYTHON


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    python = _tf_serving_python()
    work = tmp_path_factory.mktemp("tf-serving")
    models, jobs = {}, []
    for name in SAVED_MODELS:  # exported once a session, for the matrix and the parity test too
        models[name] = encoder_of(name)
        jobs.append((name, shared_saved_model(tmp_path_factory, name, models[name]), "serving_default"))
    models["chunks"] = make_tiny_encoder(seed=3)
    jobs.append(("chunks", export_saved_model(models["chunks"], work / "chunks", chunking=CHUNKING), "chunks"))
    models["hashed"] = HashedEncoder(make_tiny_encoder(seed=4), SemanticHashing(64))
    folder = export_saved_model(models["hashed"], work / "hashed")
    jobs += [("hashed", folder, "serving_default"), ("hashed-codes", folder, "hash")]
    for name in COLBERT_FOLDERS:  # both sides of a ColBERT model in one SavedModel
        models[name] = MultiVectorEncoder.from_pretrained(os.path.join(MULTI_VECTOR_FOLDERS, name))
        folder = export_saved_model(models[name], work / name)
        jobs += [(f"{name}-query", folder, "query"), (f"{name}-document", folder, "document")]
    texts = [*MATRIX_TEXTS, LONG, *SENTENCES[::7]]  # the parity test's sentences (non-ASCII among them) too
    (work / "texts.json").write_text(json.dumps(texts))
    (work / "jobs.json").write_text(json.dumps([[name, str(path), signature] for name, path, signature in jobs]))
    result = subprocess.run(
        [python, "-c", SERVE, work / "texts.json", work / "jobs.json", work / "out.npz"],
        capture_output=True,
        text=True,
        timeout=600,
        cwd=work,
        env={**os.environ, "PYTHONPATH": ""},
    )
    assert result.returncode == 0, result.stderr[-3000:]
    versions = json.loads(result.stdout.strip().splitlines()[-1])
    return models, texts, dict(np.load(work / "out.npz")), versions


def test_the_venv_holds_tf_servings_tensorflow(served):
    versions = served[3]
    assert versions["tensorflow"].startswith("2.20.") and versions["tensorflow_text"].startswith("2.20.")
    assert versions["ours"] == []  # strings in, vectors out with TensorFlow and TF Text alone


@pytest.mark.parametrize("name", SAVED_MODELS)
def test_each_familys_saved_model_answers_as_encode(served, name):
    models, texts, outputs, _ = served
    np.testing.assert_allclose(outputs[f"{name}/embedding"], models[name].encode(texts), atol=1e-5)


def test_the_chunks_signature_answers_as_encode_with_chunking(served):
    models, texts, outputs, _ = served
    expected = models["chunks"].encode(texts, chunking=CHUNKING)
    np.testing.assert_allclose(outputs["chunks/embedding"], expected.vectors, atol=1e-5)
    np.testing.assert_array_equal(outputs["chunks/document"], expected.document)


@pytest.mark.parametrize("name", COLBERT_FOLDERS)
def test_a_colbert_models_sides_answer_as_encode_query_and_encode_document(served, name):
    models, texts, outputs, _ = served
    for side, expected in (
        ("query", models[name].encode_query(texts)),
        ("document", models[name].encode_document(texts)),
    ):
        vectors, counts = outputs[f"{name}-{side}/vectors"], outputs[f"{name}-{side}/token_counts"]
        assert counts.tolist() == [len(rows) for rows in expected], side
        np.testing.assert_allclose(np.concatenate([v[:n] for v, n in zip(vectors, counts)]), np.concatenate(expected),
                                   atol=1e-5, err_msg=side)  # fmt: skip


def test_a_hashed_models_codes_are_its_hash(served):
    models, texts, outputs, _ = served
    np.testing.assert_allclose(outputs["hashed/embedding"], models["hashed"].encode(texts), atol=1e-5)
    np.testing.assert_array_equal(outputs["hashed-codes/codes"], models["hashed"].hash(texts))
