"""The SavedModel's `chunks` signature, loaded in a process with only TensorFlow and TF Text, cuts
long texts as `encode(texts, chunking=…)` does and gives the same chunk vectors."""

import json
import os
import textwrap

import numpy as np
import pytest

from keras_sentemb import SentenceEncoder
from keras_sentemb.chunking import Chunking
from keras_sentemb.export import export_saved_model
from tests.conftest import FIXTURES, make_tiny_encoder
from tests.fresh_process import run_fresh_python

with open(os.path.join(FIXTURES, "hostile_texts", "texts.json"), encoding="utf-8") as f:
    SOME_HOSTILE_TEXTS = json.load(f)[::211]
LONG = " ".join(["the cat sat on the mat .", "a dog ran fast !", "hello world", "bread in the oven ."] * 6)
TEXTS = [LONG, "", "the cat sat", LONG[:50], *SOME_HOSTILE_TEXTS]

SERVE_CHUNKS = textwrap.dedent(
    """
    import json, sys
    import numpy as np
    import tensorflow as tf
    import tensorflow_text  # registers the tokenizer's ops
    texts = tf.constant(json.load(open(sys.argv[1])))
    for case, folder in json.load(open(sys.argv[2])).items():
        out = tf.saved_model.load(folder).signatures["chunks"](texts=texts)
        np.savez(f"{sys.argv[3]}/{case}.npz", **{name: value.numpy() for name, value in out.items()})
    print(json.dumps(sorted(m for m in sys.modules if m.startswith("keras_sentemb"))))
    """
)
MODELS = {
    "tiny-bert-with-a-prompt": (lambda: make_tiny_encoder(seed=3, prompts={"document": "hello "}), "document"),
    "roberta-folder": (
        lambda: SentenceEncoder.from_pretrained(os.path.join(FIXTURES, "st_folders", "roberta_mean_normalize_new")),
        None,
    ),
}
CHUNKINGS = {
    "naive": Chunking(size=8, overlap=3, pooling=None),
    "late": Chunking(size=6, overlap=1, late=True, context=20, pooling=None),
}


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    """({model: encoder}, {(model, chunking): its `chunks` signature's outputs on TEXTS}): every case exported,
    then all served by one fresh process with TensorFlow and TF Text alone."""
    work = tmp_path_factory.mktemp("chunks")
    encoders = {name: make() for name, (make, _) in MODELS.items()}
    cases = {(name, chunking): f"{chunking}-{name}" for name in MODELS for chunking in CHUNKINGS}
    folders = {
        case: str(
            export_saved_model(encoders[name], work / case, prompt_name=MODELS[name][1], chunking=CHUNKINGS[chunking])
        )
        for (name, chunking), case in cases.items()
    }
    (work / "texts.json").write_text(json.dumps(TEXTS))
    (work / "cases.json").write_text(json.dumps(folders))
    imported = run_fresh_python(SERVE_CHUNKS, work / "texts.json", work / "cases.json", work, cwd=work)
    assert imported == []  # TF + TF Text only
    return encoders, {key: dict(np.load(work / f"{case}.npz")) for key, case in cases.items()}


@pytest.mark.parametrize("name", MODELS)
@pytest.mark.parametrize("chunking_name", CHUNKINGS)
def test_the_chunks_signature_equals_encode_with_chunking(name, chunking_name, served):
    encoders, outputs = served
    outputs = outputs[name, chunking_name]
    expected = encoders[name].encode(TEXTS, chunking=CHUNKINGS[chunking_name], prompt_name=MODELS[name][1])
    np.testing.assert_array_equal(outputs["document"], expected.document)
    np.testing.assert_array_equal(outputs["start"], expected.piece_start)
    np.testing.assert_array_equal(outputs["end"], expected.piece_end)
    np.testing.assert_allclose(outputs["embedding"], expected.vectors, atol=1e-5)
    assert expected.document.tolist().count(0) > 3  # the long text is several chunks


def test_what_the_graph_cannot_cut_is_refused_at_export(tmp_path):
    encoder = make_tiny_encoder(seed=3)
    with pytest.raises(ValueError, match="sentence ends are encode's"):
        export_saved_model(encoder, tmp_path / "a", chunking=Chunking(size=8, sentences=True))
    with pytest.raises(ValueError, match="size 20 exceeds the 14 word pieces"):
        export_saved_model(encoder, tmp_path / "b", chunking=Chunking(size=20))
