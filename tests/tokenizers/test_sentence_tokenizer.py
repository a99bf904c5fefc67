"""SentenceTokenizer: BERT's clean-up, special tokens, lower-casing, truncation, packing."""

import functools

import keras
import numpy as np
import pytest
import tensorflow as tf

from keras_sentemb import SentenceTokenizer
from tests.conftest import TINY_VOCAB

ID = {token: i for i, token in enumerate(TINY_VOCAB)}


@functools.cache
def shared_tokenizer(max_length=16):
    """One tokenizer a `max_length` for the tests that only read ids: its graph is traced once."""
    return SentenceTokenizer(TINY_VOCAB, max_length=max_length)


def ids(texts, max_length=16):
    return shared_tokenizer(max_length).content_ids(tf.constant(texts)).to_list()


def test_lowercases_strips_accents_and_splits_punctuation():
    assert ids(["The CAT sat, on the Mat!"]) == [
        [ID["the"], ID["cat"], ID["sat"], ID[","], ID["on"], ID["the"], ID["mat"], ID["!"]]
    ]
    assert ids(["Café"]) == [[ID["cafe"]]]


def test_lowercases_like_python_lower_not_case_folding():
    # case folding would turn "ß" into "ss", which is not in the vocabulary
    assert ids(["STRAßE"]) == [[ID["straße"]]]


def test_special_tokens_written_in_text_stay_special():
    assert ids(["the [MASK] sat"]) == [[ID["the"], ID["[MASK]"], ID["sat"]]]


def test_control_and_zero_width_characters_are_deleted():
    assert ids(["c\u200bat\x00 \tdog\r\n"]) == [[ID["cat"], ID["dog"]]]


def test_invalid_utf8_becomes_unknown_instead_of_failing():
    assert ids([b"cat \xff dog"]) == [[ID["cat"], ID["dog"]]]  # U+FFFD is deleted
    assert ids([b"\xc3"]) == [[]]


def test_empty_and_whitespace_only_texts_have_no_content_ids():
    assert ids(["", "   ", "\t\n"]) == [[], [], []]


def test_truncates_to_max_length_minus_two_content_ids():
    text = " ".join(["cat"] * 20)
    assert ids([text], max_length=6) == [[ID["cat"]] * 4]


def test_pack_adds_cls_sep_and_pads_to_the_longest_row():
    tokenizer = shared_tokenizer(16)
    packed = tokenizer.pack(tokenizer.content_ids(tf.constant(["cat dog", ""])))
    np.testing.assert_array_equal(packed["token_ids"], [[ID["[CLS]"], ID["cat"], ID["dog"], ID["[SEP]"]], [2, 3, 0, 0]])
    np.testing.assert_array_equal(packed["padding_mask"], [[1, 1, 1, 1], [1, 1, 0, 0]])


def test_calling_the_tokenizer_gives_the_untruncated_content_ids():
    tokenizer = SentenceTokenizer(TINY_VOCAB, max_length=4)
    texts = ["the\u00a0cat sat [UNK]", ""]
    ids = tokenizer(tf.constant(texts))  # keras-hub's `call`: a RaggedTensor (0.32) or lists (0.31's eager outputs)
    assert (ids.to_list() if hasattr(ids, "to_list") else ids) == [[ID["the"], ID["cat"], ID["sat"], ID["[UNK]"]], []]
    assert tokenizer.tokenize("the\u2028cat").numpy().tolist() == [ID["the"], ID["cat"]]


def test_config_round_trip_keeps_settings():
    tokenizer = SentenceTokenizer(TINY_VOCAB, lowercase=False, strip_accents=False, max_length=9)
    config = tokenizer.get_config()
    clone = SentenceTokenizer.from_config({**config, "vocabulary": TINY_VOCAB})
    assert (clone.lowercase_text, clone.strip_accents, clone.max_length) == (False, False, 9)
    assert isinstance(
        keras.saving.deserialize_keras_object(keras.saving.serialize_keras_object(tokenizer)),
        SentenceTokenizer,
    )


@pytest.mark.parametrize("bad", [2, 0, "16", 3.5])
def test_rejects_a_max_length_that_cannot_hold_cls_and_sep(bad):
    with pytest.raises(ValueError, match="max_length"):
        SentenceTokenizer(TINY_VOCAB, max_length=bad)


def test_the_vocabulary_is_a_plain_list_not_tracked_token_by_token_by_keras():
    # Keras wraps a list attribute and tracks every element: 0.7 s of each MPNet load on 2 cores.
    vocabulary = TINY_VOCAB + [f"word{i}" for i in range(5000)]
    tokenizer = SentenceTokenizer(vocabulary, max_length=16)
    assert type(tokenizer.vocabulary) is list and tokenizer.vocabulary == vocabulary
    assert type(getattr(tokenizer, "_token_to_id_map", {})) is dict  # keras-hub 0.32's lookup; 0.31 has none
    assert tokenizer.content_ids(tf.constant(["word4999"])).to_list() == [[len(TINY_VOCAB) + 4999]]


def test_a_batch_mixing_plain_ascii_and_other_texts_keeps_each_texts_ids_in_input_order():
    # Plain-ASCII texts take TF Text's fast BERT path, the others the exact splitter: the ids must not
    # depend on which path a text took nor on its neighbours.
    tokenizer = SentenceTokenizer(TINY_VOCAB, max_length=64)
    texts = ["The cat SAT.", "straße café", "the [SEP] dog", "", "rain\tstorm\r\n!", "a" * 100, "a" * 101, "ÉTÉ?"]
    together = tokenizer.content_ids(tf.constant(texts)).to_list()
    alone = [tokenizer.content_ids(tf.constant([text])).to_list()[0] for text in texts]
    assert together == alone
    assert together == [row.tolist() for row in tokenizer.content_id_rows(texts)]
    assert together[2][1] == TINY_VOCAB.index("[SEP]")
    assert together[6] == [TINY_VOCAB.index("[UNK]")]  # a word over 100 characters


ROBERTA_STYLE = ["<s>", "<pad>", "</s>", "<unk>", "<mask>", *TINY_VOCAB[5:]]


def roberta_style_tokenizer(max_length=16):
    return SentenceTokenizer(
        ROBERTA_STYLE,
        max_length=max_length,
        cls_token="<s>",
        sep_token="</s>",
        pad_token="<pad>",
        mask_token="<mask>",
        oov_token="<unk>",
        pair_separators=2,
    )


def test_pairs_are_cls_a_sep_sep_b_sep_with_two_separators():
    tokenizer = roberta_style_tokenizer()
    ids, segments = tokenizer.pair_ids(tf.constant(["the cat"]), tf.constant(["a dog"]))
    words = [ROBERTA_STYLE[i] for i in ids.to_list()[0]]
    assert words == ["<s>", "the", "cat", "</s>", "</s>", "a", "dog", "</s>"]
    assert segments.to_list() == [[0, 0, 0, 0, 1, 1, 1, 1]]


def test_two_separators_leave_max_length_minus_four_content_tokens():
    tokenizer = roberta_style_tokenizer(max_length=9)  # 5 content tokens: 3 + 2, longest first
    ids, _ = tokenizer.pair_ids(tf.constant(["the cat sat on the mat"]), tf.constant(["a dog ran fast"]))
    words = [ROBERTA_STYLE[i] for i in ids.to_list()[0]]
    assert words == ["<s>", "the", "cat", "sat", "</s>", "</s>", "a", "dog", "</s>"]


def test_pair_separators_survive_the_config_and_other_counts_are_refused():
    restored = SentenceTokenizer.from_config(roberta_style_tokenizer().get_config())
    assert restored.pair_separators == 2
    assert "pair_separators" not in SentenceTokenizer(TINY_VOCAB).get_config()  # BERT's one is the default
    with pytest.raises(ValueError, match="pair_separators must be 1 or 2, got 3"):
        SentenceTokenizer(TINY_VOCAB, pair_separators=3)
