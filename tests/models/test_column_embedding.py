"""One encoder pass over several text columns (the siamese network of SBERT and DSE), and
each distinct text of a pair list embedded once."""

import numpy as np
import pytest

from keras_sentemb.models.column_embedding import embed_columns, embed_pairs_once
from tests.conftest import make_tiny_encoder, packed_tokens


class CountingEncoder:
    def __init__(self, encoder):
        self.encoder, self.calls = encoder, 0

    def __call__(self, inputs, training=False):
        self.calls += 1
        return self.encoder(inputs, training=training)


def test_columns_of_different_lengths_share_one_call_and_padding_changes_nothing():
    encoder = make_tiny_encoder()
    first = packed_tokens(encoder.tokenizer, ["the cat sat on the mat .", "a dog"])
    second = packed_tokens(encoder.tokenizer, ["rain", "hello world"])
    counting = CountingEncoder(encoder)
    u, v = embed_columns(counting, {"a": first, "b": second}, ["a", "b"])
    assert counting.calls == 1 and u.shape == v.shape == (2, encoder.embedding_dim)
    np.testing.assert_allclose(u, encoder(first), atol=1e-5)
    np.testing.assert_allclose(v, encoder(second), atol=1e-5)


def test_pairs_embed_each_distinct_text_once_in_pair_order():
    seen = []

    def embed(texts):
        seen.append(list(texts))
        return np.array([[len(t)] for t in texts])

    u, v = embed_pairs_once(embed, ["ab", "c", "ab"], ["c", "def", "ab"])
    assert seen == [["ab", "c", "def"]]
    assert u.ravel().tolist() == [2, 1, 2] and v.ravel().tolist() == [1, 3, 2]


def test_pair_lists_of_different_lengths_are_refused():
    with pytest.raises(ValueError, match="2 first sentences but 1 second"):
        embed_pairs_once(lambda t: np.zeros((len(t), 1)), ["a", "b"], ["c"])
