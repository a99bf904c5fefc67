"""A SparseEncoder's documents on OpenVINO: its family's math fused, the head and SPLADE's pooling over a batch of at
most OPENVINO_MAX_BATCH_TOKENS tokens, the same vectors as TensorFlow's (float32) or near them (bfloat16, int8)."""

import os

import numpy as np
import pytest

from keras_sentemb.models import SparseEncoder
from keras_sentemb.models.sparse_encoder import OPENVINO_MAX_BATCH_TOKENS
from keras_sentemb.runtime import openvino_cpu_capabilities
from keras_sentemb.utils.sparse_rows import SparseRows
from tests.fixture_folders import SPARSE_FAMILY_FOLDERS

pytest.importorskip("openvino")

FOLDERS = os.path.join(os.path.dirname(os.path.dirname(__file__)), "fixtures", "sparse_folders")
TEXTS = ["A cat sits on the mat.", "", "rain " * 60, "ünïcödé   and spaces", "the dog ran home", "[SEP] x"]
FAMILIES = SPARSE_FAMILY_FOLDERS


@pytest.mark.parametrize("name", FAMILIES)
def test_openvino_float32_gives_tensorflows_vectors(name):
    encoder = SparseEncoder.from_pretrained(os.path.join(FOLDERS, name))
    reference = encoder.encode_document(TEXTS).toarray()
    fused = encoder.encode_document(TEXTS, backend="openvino").toarray()
    assert np.abs(fused - reference).max() <= 1e-5 * np.abs(reference).max()
    np.testing.assert_array_equal(fused > 0, reference > 0)


def test_a_batch_holds_at_most_the_token_budget():
    encoder = SparseEncoder.from_pretrained(os.path.join(FOLDERS, "bert_splade_max"))
    runtime = encoder.inference_runtime("openvino", "float32")
    assert runtime.max_batch_tokens == OPENVINO_MAX_BATCH_TOKENS
    calls = []

    def counting(token_ids, padding_mask):
        calls.append(token_ids.size)
        return runtime(token_ids, padding_mask)

    counting.max_batch_tokens = runtime.max_batch_tokens
    texts = ["word " * 40] * 64
    rows = encoder.tokenize_to_rows([text.encode() for text in texts])
    encoder.predict_rows(rows, 64, False, runtime=counting, sink=SparseRows(len(rows), encoder.embedding_dim))
    assert max(calls) <= OPENVINO_MAX_BATCH_TOKENS and len(calls) > 1


@pytest.mark.parametrize("precision", ["bfloat16", "int8"])
def test_reduced_precision_stays_near_float32(precision, monkeypatch):
    if precision == "bfloat16" and "BF16" not in openvino_cpu_capabilities()[0]:
        pytest.skip("this CPU has no bfloat16 arithmetic")
    from keras_sentemb.models import embedding_model

    monkeypatch.setattr(embedding_model, "cpu_has_int8_dot_products", lambda: True)  # int8 built on any CPU
    encoder = SparseEncoder.from_pretrained(os.path.join(FOLDERS, "bert_splade_max"))
    reference = encoder.encode_document(TEXTS).toarray()
    reduced = encoder.encode_document(
        TEXTS, backend="openvino", precision=precision, calibration_texts=TEXTS * 4 if precision == "int8" else None
    ).toarray()
    cosine = (reduced * reference).sum(axis=1) / np.linalg.norm(reduced, axis=1) / np.linalg.norm(reference, axis=1)
    assert cosine.min() > 0.97
