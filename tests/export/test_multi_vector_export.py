"""Multi-vector (ColBERT) encoders exported: one raw-string SavedModel a side, whose rows are `encode_query` /
`encode_document`'s token vectors — the query side with its marker and expansion fillers."""

import os

import numpy as np
import pytest
import tensorflow as tf
import tensorflow_text  # noqa: F401  (the SavedModel's tokenizer ops)

from keras_sentemb.export import export_multi_vector_encoder, export_saved_model
from keras_sentemb.models import MultiVectorEncoder
from tests.fixture_folders import LONG_QUERY, MULTI_VECTOR_FOLDERS

TEXTS = ["A cat sits on the mat.", "", "the , the . dog", "ünïcödé   and spaces", LONG_QUERY, "[SEP] rain"]


def served(folder, texts):
    outputs = tf.saved_model.load(folder).signatures["serving_default"](texts=tf.constant(texts, tf.string))
    vectors, counts = outputs["vectors"].numpy(), outputs["token_counts"].numpy()
    assert vectors.dtype == np.float32 and counts.dtype == np.int64
    assert all((vectors[i, n:] == 0).all() for i, n in enumerate(counts))  # zeros after each row's vectors
    return [vectors[i, :n] for i, n in enumerate(counts)]


@pytest.mark.parametrize("name", ["bert_colbert", "modernbert_colbert"])
def test_each_sides_savedmodel_gives_encodes_token_vectors(name, tmp_path):
    encoder = MultiVectorEncoder.from_pretrained(os.path.join(MULTI_VECTOR_FOLDERS, name))
    documents = export_saved_model(encoder, tmp_path / "documents")
    queries = export_multi_vector_encoder(encoder, tmp_path / "queries", side="query")
    for folder, expected in ((documents, encoder.encode_document(TEXTS)), (queries, encoder.encode_query(TEXTS))):
        rows = served(folder, TEXTS)
        assert [len(row) for row in rows] == [len(row) for row in expected], folder
        np.testing.assert_allclose(np.concatenate(rows), np.concatenate(expected), atol=1e-5, err_msg=folder)


def test_options_of_other_models_are_refused(tmp_path):
    encoder = MultiVectorEncoder.from_pretrained(os.path.join(MULTI_VECTOR_FOLDERS, "bert_colbert"))
    with pytest.raises(ValueError, match="takes no code table, chunking"):
        export_saved_model(encoder, tmp_path / "x", truncate_dim=8)
    with pytest.raises(ValueError, match="side 'passage'"):
        export_multi_vector_encoder(encoder, tmp_path / "y", side="passage")
    assert not os.path.exists(tmp_path / "x") and not os.path.exists(tmp_path / "y")
