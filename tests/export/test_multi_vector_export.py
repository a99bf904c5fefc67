"""Multi-vector (ColBERT) encoders exported: raw-string SavedModels whose `query` / `document` signatures give `encode_query` /
`encode_document`'s token vectors — the query side with its marker and expansion fillers."""

import os

import numpy as np
import pytest
import tensorflow as tf
import tensorflow_text  # noqa: F401  (the SavedModel's tokenizer ops)

from keras_sentemb.apps.cli import main
from keras_sentemb.export import export_multi_vector_encoder, export_saved_model
from keras_sentemb.models import MultiVectorEncoder
from tests.conftest import make_tiny_encoder
from tests.fixture_folders import LONG_QUERY, MULTI_VECTOR_FOLDERS

TEXTS = ["A cat sits on the mat.", "", "the , the . dog", "ünïcödé   and spaces", LONG_QUERY, "[SEP] rain"]


def served(folder, texts, signature="serving_default"):
    outputs = tf.saved_model.load(folder).signatures[signature](texts=tf.constant(texts, tf.string))
    vectors, counts = outputs["vectors"].numpy(), outputs["token_counts"].numpy()
    assert vectors.dtype == np.float32 and counts.dtype == np.int64
    assert all((vectors[i, n:] == 0).all() for i, n in enumerate(counts))  # zeros after each row's vectors
    return [vectors[i, :n] for i, n in enumerate(counts)]


def assert_same_rows(rows, expected, message):
    assert [len(row) for row in rows] == [len(row) for row in expected], message
    np.testing.assert_allclose(np.concatenate(rows), np.concatenate(expected), atol=1e-5, err_msg=message)


@pytest.mark.parametrize("name", ["bert_colbert", "modernbert_colbert"])
def test_one_savedmodel_serves_both_sides_by_signature_name(name, tmp_path):
    encoder = MultiVectorEncoder.from_pretrained(os.path.join(MULTI_VECTOR_FOLDERS, name))
    folder = export_saved_model(encoder, tmp_path / "colbert")
    assert sorted(tf.saved_model.load(folder).signatures) == ["document", "query", "serving_default"]
    documents, queries = encoder.encode_document(TEXTS), encoder.encode_query(TEXTS)
    assert_same_rows(served(folder, TEXTS, "query"), queries, "query")
    assert_same_rows(served(folder, TEXTS, "document"), documents, "document")
    assert_same_rows(served(folder, TEXTS), documents, "serving_default")


def test_a_single_side_is_the_savedmodels_serving_default(tmp_path):
    encoder = MultiVectorEncoder.from_pretrained(os.path.join(MULTI_VECTOR_FOLDERS, "bert_colbert"))
    queries = export_multi_vector_encoder(encoder, tmp_path / "queries", side="query")
    assert list(tf.saved_model.load(queries).signatures) == ["serving_default"]
    assert_same_rows(served(queries, TEXTS), encoder.encode_query(TEXTS), "query")
    prompted = export_saved_model(encoder, tmp_path / "prompted", side="document", prompt="[Q] ")
    assert_same_rows(served(prompted, TEXTS), encoder.encode_document(TEXTS, prompt="[Q] "), "prompted document")


def test_options_of_other_models_are_refused(tmp_path):
    encoder = MultiVectorEncoder.from_pretrained(os.path.join(MULTI_VECTOR_FOLDERS, "bert_colbert"))
    with pytest.raises(ValueError, match="takes no code table, chunking"):
        export_saved_model(encoder, tmp_path / "x", truncate_dim=8)
    with pytest.raises(ValueError, match="side 'passage'"):
        export_multi_vector_encoder(encoder, tmp_path / "y", side="passage")
    with pytest.raises(ValueError, match="export that side alone"):
        export_saved_model(encoder, tmp_path / "z", prompt="[Q] ")
    with pytest.raises(ValueError, match="side is for a MultiVectorEncoder or a SparseEncoder"):
        export_saved_model(make_tiny_encoder(), tmp_path / "w", side="query")
    assert not any(os.path.exists(tmp_path / name) for name in "xyzw")


def test_the_command_line_exports_a_colbert_folder_alone_or_in_a_bundle(tmp_path, capsys):
    folder = os.path.join(MULTI_VECTOR_FOLDERS, "bert_pylate")
    assert main(["export", str(tmp_path / "colbert"), "--model", folder]) == 0
    assert "query, document = serving_default" in capsys.readouterr().out
    encoder = MultiVectorEncoder.from_pretrained(folder)
    assert_same_rows(served(str(tmp_path / "colbert" / "1"), TEXTS, "query"), encoder.encode_query(TEXTS), "cli")
    assert main(["export", "--serving", str(tmp_path / "serving"), folder]) == 0
    assert sorted(os.listdir(tmp_path / "serving")) == ["bert_pylate", "models.config"]
    assert sorted(tf.saved_model.load(str(tmp_path / "serving" / "bert_pylate" / "1")).signatures) == [
        "document",
        "query",
        "serving_default",
    ]
    assert main(["export", str(tmp_path / "colbert"), "--model", folder]) == 2  # the version exists
    assert "exists" in capsys.readouterr().err
