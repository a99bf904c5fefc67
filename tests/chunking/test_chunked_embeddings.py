"""ChunkedEmbeddings pools chunk vectors per document (mean, max, first) and cuts chunk texts."""

import numpy as np
import pytest

from keras_sentemb.chunking import ChunkedEmbeddings


def _chunks():
    vectors = np.array([[3.0, 4.0], [0.0, 2.0], [1.0, -1.0], [5.0, 0.0]], np.float32)
    return ChunkedEmbeddings(vectors, np.array([0, 0, 0, 1]), np.array([0, 4, 8, 0]), np.array([4, 8, 9, 2]))


def test_pooling_takes_each_documents_chunks_only():
    chunks = _chunks()
    np.testing.assert_allclose(chunks.pooled("mean", normalize=False), [[4 / 3, 5 / 3], [5.0, 0.0]], rtol=1e-6)
    np.testing.assert_allclose(chunks.pooled("max", normalize=False), [[3.0, 4.0], [5.0, 0.0]])
    np.testing.assert_allclose(chunks.pooled("first"), [[0.6, 0.8], [1.0, 0.0]], rtol=1e-6)
    assert chunks.num_documents == 2 and len(chunks) == 4


def test_chunk_texts_are_cut_from_the_documents_and_unknown_poolings_refused():
    assert _chunks().texts(["abcdefghi", "xy"]) == ["abcd", "efgh", "i", "xy"]
    with pytest.raises(ValueError, match="pooling must be one of"):
        _chunks().pooled("median")
