"""A MultiVectorEncoder on OpenVINO: its family's math fused in the padded layout (a query's unattended fillers
computed as TensorFlow computes them), the same token vectors as TensorFlow's (float32) or near them (bfloat16)."""

import os

import numpy as np
import pytest

from keras_sentemb.models import MultiVectorEncoder
from keras_sentemb.runtime import openvino_cpu_capabilities
from tests.fixture_folders import LONG_QUERY, MULTI_VECTOR_FOLDERS

pytest.importorskip("openvino")

TEXTS = ["A cat sits on the mat.", "", "the , the . dog", "ünïcödé   and spaces", LONG_QUERY, "[SEP] rain"]


@pytest.fixture(scope="module", params=["bert_colbert", "modernbert_colbert"])
def encoder(request):
    return MultiVectorEncoder.from_pretrained(os.path.join(MULTI_VECTOR_FOLDERS, request.param))


@pytest.mark.parametrize("side", ["query", "document"])
def test_openvino_float32_gives_tensorflows_token_vectors(encoder, side):
    encode = getattr(encoder, f"encode_{side}")
    reference, fused = encode(TEXTS), encode(TEXTS, backend="openvino")
    assert [len(row) for row in fused] == [len(row) for row in reference]
    np.testing.assert_allclose(np.concatenate(fused), np.concatenate(reference), atol=1e-5)


def test_bfloat16_stays_near_float32(encoder):
    if "BF16" not in openvino_cpu_capabilities()[0]:
        pytest.skip("this CPU has no bfloat16 arithmetic")
    reference = np.concatenate(encoder.encode_document(TEXTS))
    reduced = np.concatenate(encoder.encode_document(TEXTS, backend="openvino", precision="bfloat16"))
    assert ((reduced * reference).sum(axis=1) / np.linalg.norm(reduced, axis=1)).min() > 0.99  # unit rows


@pytest.mark.parametrize(
    "backend, precision", [("openvino", "int8"), ("litert", "float32"), ("tensorflow", "bfloat16")]
)
def test_runtimes_it_does_not_run_are_refused(encoder, backend, precision):
    with pytest.raises(ValueError, match=f"backend={backend!r}|backend='tensorflow' runs"):
        encoder.encode_document(["a cat"], backend=backend, precision=precision)
