"""EmbeddingMemo: each distinct text is encoded once, rows come back in the asked order,
and codes exist only for hashed models."""

import numpy as np
import pytest

from keras_sentemb.evaluation.embedding_memo import EmbeddingMemo
from tests.evaluation.fake_encoders import CharacterTrigramEncoder, SignHashedEncoder


def test_each_distinct_text_is_encoded_once_and_rows_follow_the_request():
    encoder = CharacterTrigramEncoder()
    memo = EmbeddingMemo(encoder)
    first = memo.embed(["a cat", "a dog", "a cat"])
    second = memo.embed(["a dog", "rain"])
    assert encoder.encoded == ["a cat", "a dog", "rain"]
    np.testing.assert_array_equal(first[0], first[2])
    np.testing.assert_array_equal(second[0], first[1])
    np.testing.assert_allclose(second[1], encoder.encode(["rain"])[0])


def test_an_empty_request_gives_an_empty_matrix_of_the_right_width():
    assert EmbeddingMemo(CharacterTrigramEncoder(dim=8)).embed([]).shape == (0, 8)


def test_codes_are_packed_bits_of_a_hashed_model_and_refused_otherwise():
    memo = EmbeddingMemo(SignHashedEncoder(dim=16))
    assert memo.hashed and memo.codes(["x y"]).shape == (1, 2)
    with pytest.raises(TypeError, match="not a HashedEncoder"):
        EmbeddingMemo(CharacterTrigramEncoder()).codes(["x"])


def test_hamming_similarity_uses_the_codes_and_cosine_the_vectors():
    memo = EmbeddingMemo(SignHashedEncoder(dim=16))
    assert memo.pair_similarity("hamming", ["same"], ["same"]).tolist() == [0.0]  # −(differing bits)
    np.testing.assert_allclose(memo.pair_similarity("cosine", ["same"], ["same"]), [1.0], rtol=1e-6)


def test_a_model_without_encode_is_refused():
    with pytest.raises(TypeError, match="encode"):
        EmbeddingMemo(object())
