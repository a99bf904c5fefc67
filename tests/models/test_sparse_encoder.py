"""SparseEncoder: SPLADE and inference-free SPLADE folders of every family with a masked-LM head compute
sentence-transformers' vectors (tests/fixtures/sparse_folders_reference/, recorded by
benchmarks/anchors/sparse_folders.py), and the API a sentence-transformers user knows."""

import json
import os

import numpy as np
import pytest
import scipy.sparse
import tensorflow as tf

from keras_sentemb.export.sparse_model_export import side_prompt
from keras_sentemb.models import SparseEncoder
from tests.fixture_folders import SPARSE_FAMILY_FOLDERS, reference_texts

FIXTURES = os.path.join(os.path.dirname(os.path.dirname(__file__)), "fixtures")
FOLDERS = os.path.join(FIXTURES, "sparse_folders")
REFERENCE = os.path.join(FIXTURES, "sparse_folders_reference")
FAMILY_FOLDERS = [*SPARSE_FAMILY_FOLDERS, "bert_inference_free"]


def assert_same_active_dimensions(ours, theirs):
    """The same active dimensions, but for a logit within float32 round-off of 0 (bert: one of 56,000, a weight of
    2.3e-7 where the reference's logit is ≤ 0): at most 2 such entries, each ≤ 1e-6 of the largest weight."""
    differs = (ours > 0) != (theirs > 0)
    assert (np.maximum(ours, theirs)[differs] <= 1e-6 * np.abs(theirs).max()).all() and differs.sum() <= 2


@pytest.fixture(scope="module")
def bert():
    return SparseEncoder.from_pretrained(os.path.join(FOLDERS, "bert_splade_max"))


@pytest.mark.parametrize("name", FAMILY_FOLDERS)
def test_vectors_equal_sentence_transformers_with_the_same_active_dimensions(name):
    encoder = SparseEncoder.from_pretrained(os.path.join(FOLDERS, name))
    reference = np.load(os.path.join(REFERENCE, f"{name}.npz"))
    texts = reference_texts()
    for side in ("query", "document"):
        ours = getattr(encoder, f"encode_{side}")(texts)
        assert isinstance(ours, scipy.sparse.csr_matrix) and ours.dtype == np.float32
        ours, theirs = ours.toarray(), reference[side]
        assert ours.shape == theirs.shape
        assert np.abs(ours - theirs).max() <= 1e-4 * np.abs(theirs).max(), (name, side)
        assert_same_active_dimensions(ours, theirs)


@pytest.mark.parametrize("name", FAMILY_FOLDERS)
def test_the_unpadded_path_of_the_savedmodel_gives_sentence_transformers_documents(name):
    encoder = SparseEncoder.from_pretrained(os.path.join(FOLDERS, name))
    assert encoder.supports_unpadded()
    prompt = side_prompt(encoder, "document", None, None) or ""
    texts = tf.constant([prompt + text for text in reference_texts()])
    sequences = encoder.tokenizer.add_special_tokens(encoder.tokenizer.content_ids(texts))
    ours = encoder.embed_unpadded(sequences, encoder.unpadded_projections()).numpy()
    theirs = np.load(os.path.join(REFERENCE, f"{name}.npz"))["document"]
    assert np.abs(ours - theirs).max() <= 1e-4 * np.abs(theirs).max()
    assert_same_active_dimensions(ours, theirs)


def test_the_inference_free_query_side_runs_no_transformer():
    encoder = SparseEncoder.from_pretrained(os.path.join(FOLDERS, "bert_inference_free"))
    assert encoder.query_encoder is not None
    query = encoder.encode_query(["the cat the cat"])
    ids = encoder.query_encoder.tokenizer.content_id_rows([b"the cat the cat"])[0]
    assert sorted(query.indices.tolist()) == sorted(set(np.asarray(ids).tolist()))  # each token once, no specials
    np.testing.assert_array_equal(query.data, encoder.query_encoder.weight[query.indices])


def test_one_text_an_empty_list_and_batching(bert):
    assert bert.encode("a cat").shape == (1, bert.embedding_dim)
    assert bert.encode([]).shape == (0, bert.embedding_dim)
    texts = reference_texts()[:20]
    np.testing.assert_allclose(
        bert.encode(texts, batch_size=3).toarray(), bert.encode(texts, batch_size=32).toarray(), atol=1e-6
    )


def test_max_active_dims_keeps_the_largest_weights(bert):
    full = bert.encode(["a cat sat on the mat", "rain"]).toarray()
    pruned = bert.encode(["a cat sat on the mat", "rain"], max_active_dims=5)
    assert (np.diff(pruned.indptr) <= 5).all()
    for row in range(2):
        kept = np.sort(pruned.getrow(row).data)[::-1]
        np.testing.assert_allclose(kept, np.sort(full[row])[::-1][: len(kept)], rtol=1e-6)
    with pytest.raises(ValueError, match="max_active_dims must be a positive int"):
        bert.encode(["x"], max_active_dims=0)


def test_decode_names_the_tokens_largest_first(bert):
    vectors = bert.encode(["a cat", "the dog"])
    decoded = bert.decode(vectors, top_k=4)
    assert len(decoded) == 2 and all(len(row) == 4 for row in decoded)
    weights = [weight for _, weight in decoded[0]]
    assert weights == sorted(weights, reverse=True)
    dense = vectors.toarray()[0]
    assert decoded[0][0] == (bert.vocabulary[int(np.argmax(dense))], pytest.approx(float(dense.max())))
    assert bert.decode(dense, top_k=1) == decoded[0][:1]  # one 1-D row: one list


def test_similarity_is_the_dot_product(bert):
    queries, documents = bert.encode_query(["a cat"]), bert.encode_document(["a cat sat", "rain fell", "a dog"])
    scores = SparseEncoder.similarity(queries, documents)
    np.testing.assert_allclose(scores, queries.toarray() @ documents.toarray().T, rtol=1e-5)
    assert scores.shape == (1, 3)


def test_a_backend_it_does_not_run_is_refused_by_name(bert):
    with pytest.raises(ValueError, match="backend 'litert': a SparseEncoder runs on tensorflow, openvino"):
        bert.encode(["x"], backend="litert")


def test_a_family_without_a_masked_lm_head_is_refused(tmp_path):
    import shutil

    folder = tmp_path / "qwen3"
    shutil.copytree(os.path.join(FIXTURES, "st_folders", "qwen3_lasttoken_prompts_new"), folder)
    shutil.copytree(os.path.join(FOLDERS, "bert_splade_max", "1_SpladePooling"), folder / "1_Pooling_splade")
    (folder / "modules.json").write_text(
        json.dumps(
            [
                {
                    "idx": 0,
                    "name": "0",
                    "path": "",
                    "type": "sentence_transformers.base.modules.transformer.Transformer",
                },
                {
                    "idx": 1,
                    "name": "1",
                    "path": "1_Pooling_splade",
                    "type": "sentence_transformers.sparse_encoder.modules.splade_pooling.SpladePooling",
                },
            ]
        )
    )
    (folder / "sentence_bert_config.json").write_text(json.dumps({"transformer_task": "fill-mask"}))
    os.remove(folder / "config_sentence_transformers.json")
    with pytest.raises(ValueError, match="qwen3 masked-LM head is not supported"):
        SparseEncoder.from_pretrained(folder)


@pytest.mark.parametrize("name", ["modernbert_splade_max", "bert_inference_free"])
def test_a_keras_file_keeps_both_sides(tmp_path, name):
    import keras_sentemb

    encoder = SparseEncoder.from_pretrained(os.path.join(FOLDERS, name))
    encoder.save(tmp_path / "sparse.keras")
    loaded = keras_sentemb.load_model(tmp_path / "sparse.keras")
    texts = ["a cat sat on the mat", "rain", ""]
    for side in ("query", "document"):
        np.testing.assert_array_equal(
            getattr(loaded, f"encode_{side}")(texts).toarray(), getattr(encoder, f"encode_{side}")(texts).toarray()
        )
    assert loaded.vocabulary == encoder.vocabulary and (loaded.query_encoder is None) == (encoder.query_encoder is None)


def test_the_server_loads_a_sparse_folder_as_a_sparse_encoder():
    from keras_sentemb.zoo.loading import load_served_model

    assert isinstance(load_served_model(os.path.join(FOLDERS, "bert_inference_free")), SparseEncoder)
    assert isinstance(load_served_model(os.path.join(FOLDERS, "bert_splade_max")), SparseEncoder)
