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
    chunks = tf.saved_model.load(sys.argv[1]).signatures["chunks"]
    out = chunks(texts=tf.constant(json.load(open(sys.argv[2]))))
    np.savez(sys.argv[3], **{name: value.numpy() for name, value in out.items()})
    print(json.dumps(sorted(m for m in sys.modules if m.startswith("keras_sentemb"))))
    """
)


def _served_chunks(folder, texts, tmp_path):
    (tmp_path / "texts.json").write_text(json.dumps(texts))
    imported = run_fresh_python(SERVE_CHUNKS, folder, tmp_path / "texts.json", tmp_path / "out.npz", cwd=tmp_path)
    assert imported == []  # TF + TF Text only
    return dict(np.load(tmp_path / "out.npz"))


@pytest.mark.parametrize(
    ("name", "make", "prompt_name"),
    [
        ("tiny-bert-with-a-prompt", lambda: make_tiny_encoder(seed=3, prompts={"document": "hello "}), "document"),
        (
            "roberta-folder",
            lambda: SentenceEncoder.from_pretrained(os.path.join(FIXTURES, "st_folders", "roberta_mean_normalize_new")),
            None,
        ),
    ],
)
@pytest.mark.parametrize(
    "chunking",
    [Chunking(size=8, overlap=3, pooling=None), Chunking(size=6, overlap=1, late=True, context=20, pooling=None)],
    ids=["naive", "late"],
)
def test_the_chunks_signature_equals_encode_with_chunking(name, make, prompt_name, chunking, tmp_path):
    encoder = make()
    folder = export_saved_model(encoder, tmp_path / name, prompt_name=prompt_name, chunking=chunking)
    served = _served_chunks(folder, TEXTS, tmp_path)
    expected = encoder.encode(TEXTS, chunking=chunking, prompt_name=prompt_name)
    np.testing.assert_array_equal(served["document"], expected.document)
    np.testing.assert_array_equal(served["start"], expected.piece_start)
    np.testing.assert_array_equal(served["end"], expected.piece_end)
    np.testing.assert_allclose(served["embedding"], expected.vectors, atol=1e-5)
    assert expected.document.tolist().count(0) > 3  # the long text is several chunks


def test_what_the_graph_cannot_cut_is_refused_at_export(tmp_path):
    encoder = make_tiny_encoder(seed=3)
    with pytest.raises(ValueError, match="sentence ends are encode's"):
        export_saved_model(encoder, tmp_path / "a", chunking=Chunking(size=8, sentences=True))
    with pytest.raises(ValueError, match="size 20 exceeds the 14 word pieces"):
        export_saved_model(encoder, tmp_path / "b", chunking=Chunking(size=20))
