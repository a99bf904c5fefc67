"""WordTokenizer: GloVe-style splitting, ids, OOV, truncation, empty texts, config."""

import json
import os

import keras
import numpy as np
import pytest
import tensorflow as tf

from keras_sentemb.tokenizers import WordTokenizer
from keras_sentemb.tokenizers.word_tokenizer import plain_text
from tests.conftest import FIXTURES, TINY_WORDS


def ids_of(tokenizer, texts):
    return tokenizer.pack(tokenizer.content_ids(tf.constant(texts)))


def test_lower_cases_and_splits_punctuation_and_contractions():
    tokenizer = WordTokenizer(TINY_WORDS)
    words = tokenizer.words(tf.constant(["The cat DOESN'T sit.", "it's a-b"])).to_list()
    assert words == [[b"the", b"cat", b"does", b"n't", b"sit", b"."], [b"it", b"'s", b"a", b"-", b"b"]]


@pytest.mark.parametrize(
    "space", ["\u00a0", "\u2009", "\u202f", "\u3000", "\u1680", "\u2028", "\u2029", "\x0c", "\x85"]
)
def test_every_unicode_space_splits_words_like_a_space(space):
    tokenizer = WordTokenizer(TINY_WORDS)
    text = space.join(["The", "cat", "sat."]) + space
    assert tokenizer.words(tf.constant([text])).to_list() == [[b"the", b"cat", b"sat", b"."]]


def test_invisible_characters_are_deleted_inside_words():
    words = WordTokenizer(TINY_WORDS).words(tf.constant(["c\u200ba\u00adt\ufeff s\x00at\u200e"])).to_list()
    assert words == [[b"cat", b"sat"]]


def test_hostile_texts_split_as_their_plain_space_forms_do():
    """The form the GloVe encoders were trained on: ASCII spaces, no invisible characters."""
    with open(os.path.join(FIXTURES, "hostile_texts", "texts.json"), encoding="utf-8") as f:
        texts = json.load(f)[::3]
    tokenizer = WordTokenizer(TINY_WORDS)
    words = tokenizer.words(tf.constant(texts)).to_list()
    plain = tokenizer.words(tf.constant([plain_text(text) for text in texts])).to_list()
    assert [i for i in range(len(texts)) if words[i] != plain[i]] == []


def test_ids_follow_the_vocabulary_order_after_padding_and_oov():
    tokenizer = WordTokenizer(TINY_WORDS)
    packed = ids_of(tokenizer, ["the cat sat", "a zebra"])
    assert packed["token_ids"].numpy().tolist() == [[2, 4, 6], [3, 1, 0]]
    assert packed["padding_mask"].numpy().tolist() == [[1, 1, 1], [1, 1, 0]]
    assert tokenizer.vocabulary_size == len(TINY_WORDS) + 2


def test_empty_text_is_one_unknown_word_and_all_oov_text_is_unknown_words():
    packed = ids_of(WordTokenizer(TINY_WORDS), ["", "   ", "zebra okapi"])
    assert packed["token_ids"].numpy().tolist() == [[1, 0], [1, 0], [1, 1]]
    assert packed["padding_mask"].numpy().tolist() == [[1, 0], [1, 0], [1, 1]]


def test_long_texts_keep_their_first_max_length_words():
    tokenizer = WordTokenizer(TINY_WORDS, max_length=4)
    rows = tokenizer.content_id_rows(["the cat sat on the mat", "dog"])
    assert [row.tolist() for row in rows] == [[2, 4, 6, 7], [5]]


def test_invalid_utf8_is_replaced_not_fatal():
    """An invalid byte becomes U+FFFD, which is deleted (as BERT's clean-up deletes it)."""
    rows = WordTokenizer(TINY_WORDS).content_id_rows([b"the \xff cat", b"\xff"])
    assert [row.tolist() for row in rows] == [[2, 4], []]


def test_works_inside_tf_data():
    tokenizer = WordTokenizer(TINY_WORDS)
    data = tf.data.Dataset.from_tensor_slices(["the cat", "dog ran fast"]).batch(2)
    batch = next(iter(data.map(lambda texts: tokenizer.pack(tokenizer.content_ids(texts)))))
    assert batch["token_ids"].numpy().tolist() == [[2, 4, 0], [5, 9, 10]]


def test_config_round_trip():
    tokenizer = WordTokenizer(TINY_WORDS, lowercase=False, max_length=7)
    clone = keras.saving.deserialize_keras_object(keras.saving.serialize_keras_object(tokenizer))
    assert isinstance(clone, WordTokenizer) and clone.get_config() == tokenizer.get_config()
    assert ids_of(clone, ["The cat"])["token_ids"].numpy().tolist() == [[1, 4]]


@pytest.mark.parametrize(
    "vocabulary, match", [([], "empty"), (["a", ""], "empty word"), (["a", "b", "a"], "repeats the word 'a'")]
)
def test_rejects_bad_vocabularies(vocabulary, match):
    with pytest.raises(ValueError, match=match):
        WordTokenizer(vocabulary)


def test_rejects_bad_max_length_and_non_vector_input():
    with pytest.raises(ValueError, match="max_length"):
        WordTokenizer(TINY_WORDS, max_length=0)
    with pytest.raises(ValueError, match="1-D"):
        WordTokenizer(TINY_WORDS).content_ids(tf.constant([["a"]]))
    assert np.asarray(WordTokenizer(TINY_WORDS).content_id_rows([])).size == 0
