"""Sparse encoders exported: the SPLADE side as a raw-string SavedModel, an inference-free model's query side as a
SavedModel and as a LiteRT file with the tokenizer inside; each gives `encode_document` / `encode_query`'s rows."""

import os

import numpy as np
import pytest
import tensorflow as tf
import tensorflow_text  # noqa: F401  (the SavedModel's tokenizer ops)

from keras_sentemb.export import (
    export_saved_model,
    export_sparse_encoder,
    export_static_query_encoder,
    export_static_query_litert,
)
from keras_sentemb.models import SparseEncoder
from keras_sentemb.runtime.litert_runtime import tf_text_kernel_registrars

FOLDERS = os.path.join(os.path.dirname(os.path.dirname(__file__)), "fixtures", "sparse_folders")
TEXTS = ["A cat sits on the mat.", "", "the the the dog", "ünïcödé   and spaces", "x" * 300, "[SEP] rain"]


@pytest.fixture(scope="module")
def inference_free():
    return SparseEncoder.from_pretrained(os.path.join(FOLDERS, "bert_inference_free"))


def dense_rows(indices, values, width):
    """The (indices, values) rows, padded with (−1, 0), as a dense [N, width] array."""
    dense = np.zeros((len(indices), width), np.float32)
    for row, (ids, weights) in enumerate(zip(indices, values)):
        kept = ids >= 0
        assert (weights[~kept] == 0).all() and (np.diff(weights[kept]) <= 0).all()  # largest first, then padding
        dense[row, ids[kept]] = weights[kept]
    return dense


def assert_equal_to_round_off(ours, theirs):
    """max |Δ| ≤ 1e-5 of the largest weight: float32 round-off, the unpadded graph summing in another order
    (measured: BERT 1.9e-7, ModernBERT 2.0e-6)."""
    assert ours.shape == theirs.shape
    assert np.abs(ours - theirs).max() <= 1e-5 * np.abs(theirs).max()


def served(folder, texts):
    outputs = tf.saved_model.load(folder).signatures["serving_default"](texts=tf.constant(texts, tf.string))
    return outputs["indices"].numpy(), outputs["values"].numpy()


def test_the_splade_savedmodel_gives_encode_documents_rows(tmp_path):
    encoder = SparseEncoder.from_pretrained(os.path.join(FOLDERS, "bert_splade_sum_log1p"))  # "passage: " prompt
    folder = export_saved_model(encoder, tmp_path / "splade")
    assert_equal_to_round_off(
        dense_rows(*served(folder, TEXTS), encoder.embedding_dim), encoder.encode_document(TEXTS).toarray()
    )
    query_side = export_sparse_encoder(encoder, tmp_path / "splade_queries", side="query")
    assert_equal_to_round_off(
        dense_rows(*served(query_side, TEXTS), encoder.embedding_dim), encoder.encode_query(TEXTS).toarray()
    )


def test_a_request_runs_in_chunks_without_padding_and_keeps_its_order(tmp_path):
    encoder = SparseEncoder.from_pretrained(os.path.join(FOLDERS, "modernbert_splade_max"))
    folder = export_sparse_encoder(encoder, tmp_path / "chunked", chunk_size=2)  # 7 texts: 4 chunks, longest first
    assert tf.saved_model.load(folder).merged_projections is not None  # the family's unpadded path
    texts = TEXTS + ["a short one"]
    assert_equal_to_round_off(
        dense_rows(*served(folder, texts), encoder.embedding_dim), encoder.encode_document(texts).toarray()
    )
    indices, values = served(folder, [])
    assert indices.shape[0] == 0 and values.shape[0] == 0


def test_max_active_dims_caps_the_rows(tmp_path, inference_free):
    folder = export_sparse_encoder(inference_free, tmp_path / "capped", max_active_dims=3)
    indices, values = served(folder, TEXTS)
    assert indices.shape == (len(TEXTS), 3)
    np.testing.assert_allclose(
        dense_rows(indices, values, inference_free.embedding_dim),
        inference_free.encode_document(TEXTS, max_active_dims=3).toarray(),
        atol=1e-6,
    )


def test_the_static_query_savedmodel_equals_encode_query(tmp_path, inference_free):
    folder = export_static_query_encoder(inference_free, tmp_path / "queries")
    np.testing.assert_array_equal(
        dense_rows(*served(folder, TEXTS), inference_free.embedding_dim), inference_free.encode_query(TEXTS).toarray()
    )


def test_the_static_query_litert_file_equals_encode_query(tmp_path, inference_free):
    from ai_edge_litert import interpreter as litert

    path = export_static_query_litert(inference_free, tmp_path / "queries.tflite")
    runner = litert.InterpreterWithCustomOps(
        model_path=str(path), custom_op_registerers=tf_text_kernel_registrars()
    ).get_signature_runner("serving_default")
    texts = [text for text in TEXTS if "[SEP]" not in text]  # the file reads written special tokens as text
    outputs = runner(texts=np.array([text.encode("utf-8") for text in texts], dtype=object))
    np.testing.assert_allclose(
        dense_rows(outputs["indices"], outputs["values"], inference_free.embedding_dim),
        inference_free.encode_query(texts).toarray(),
        atol=1e-6,
    )
    empty = runner(texts=np.array([b""], dtype=object))
    assert (empty["indices"] == -1).all() and (empty["values"] == 0).all()


def test_what_each_export_refuses(tmp_path, inference_free):
    splade = SparseEncoder.from_pretrained(os.path.join(FOLDERS, "bert_splade_max"))
    with pytest.raises(ValueError, match="has no static query encoder"):
        export_static_query_encoder(splade, tmp_path / "a")
    with pytest.raises(ValueError, match="has no static query encoder"):
        export_static_query_litert(splade, tmp_path / "a.tflite")
    with pytest.raises(ValueError, match="encodes queries without a transformer"):
        export_sparse_encoder(inference_free, tmp_path / "b", side="query")
    with pytest.raises(ValueError, match="side 'both'"):
        export_sparse_encoder(splade, tmp_path / "c", side="both")
    with pytest.raises(ValueError, match="takes no code table, chunking or truncation"):
        export_saved_model(splade, tmp_path / "d", truncate_dim=8)
    assert not any(os.listdir(tmp_path))  # nothing written
