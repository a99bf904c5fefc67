"""What the word-level encoders share: dense packing of word-id rows (an empty text is one
unknown word), tables that must match the tokenizer, and a config that rebuilds the model."""

import numpy as np
import pytest

from keras_sentemb.models import InferLite
from keras_sentemb.models.word_encoder import checked_word_embeddings, pack_word_rows
from keras_sentemb.tokenizers.word_tokenizer import OOV_ID, PADDING_ID, WordTokenizer
from tests.conftest import TINY_WORDS, make_tiny_word_vectors


def test_rows_are_padded_and_an_empty_row_becomes_one_unknown_word():
    ids, mask = pack_word_rows([np.array([5, 6, 7]), np.array([], np.int32)], 4)
    assert ids.tolist() == [[5, 6, 7, PADDING_ID], [OOV_ID, PADDING_ID, PADDING_ID, PADDING_ID]]
    assert mask.tolist() == [[1, 1, 1, 0], [1, 0, 0, 0]]
    assert ids.dtype == mask.dtype == np.int32


def test_tables_must_have_one_row_per_tokenizer_id():
    tokenizer = WordTokenizer(TINY_WORDS)
    assert (
        checked_word_embeddings(tokenizer, {"glove": (len(TINY_WORDS) + 2, 6)}).vocabulary_size == len(TINY_WORDS) + 2
    )
    with pytest.raises(ValueError, match=r"tables have 3 rows but the tokenizer gives 15 ids"):
        checked_word_embeddings(tokenizer, {"glove": (3, 6)})


def test_from_word_vectors_builds_the_model_and_its_config_rebuilds_it():
    model = InferLite.from_word_vectors(make_tiny_word_vectors(), max_length=5, units=4)
    assert model.tokenizer.max_length == 5 and model.table_shapes == {"glove": (15, 6), "minilm": (15, 4)}
    clone = InferLite.from_config(model.get_config())
    assert clone.get_config() == model.get_config()
    assert model.packed_length(np.array([], np.int32)) == 1 and model.packed_length(np.arange(3)) == 3
