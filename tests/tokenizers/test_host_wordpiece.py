"""HostWordPiece: every text gets, on the host, exactly the ids of the in-graph tokenizer
(the hostile-text corpus against the model's tokenizer.json is in test_tokenizer_json_parity.py)."""

import json
import os
import string

import numpy as np
import pytest
import tensorflow as tf
from hypothesis import given, settings
from hypothesis import strategies as st

from keras_sentemb import SentenceTokenizer
from tests.conftest import FIXTURES, TINY_VOCAB

TINY = SentenceTokenizer(TINY_VOCAB, max_length=16)
# Words of the vocabulary, their pieces, special tokens in and out of case, and punctuation.
ASCII_PIECES = ["the", "Cat", "SAT", "playing", "plays", "[SEP]", "[sep]", "[MASK]", "x" * 101, " ", "  "]
ASCII_TEXTS = st.lists(
    st.one_of(st.sampled_from(ASCII_PIECES), st.text(alphabet=string.printable[:95], max_size=12)), max_size=12
).map("".join)


def in_graph(tokenizer, texts):
    return [np.asarray(row, np.int32) for row in tokenizer.content_ids(tf.constant(texts)).to_list()]


def assert_same_rows(host_rows, graph_rows):
    assert len(host_rows) == len(graph_rows)
    for host, graph in zip(host_rows, graph_rows):
        assert host.dtype == np.int32
        np.testing.assert_array_equal(host, graph)


@settings(max_examples=300, deadline=None)
@given(st.lists(ASCII_TEXTS, min_size=1, max_size=6))
def test_printable_ascii_texts_get_the_in_graph_ids(texts):
    assert_same_rows(TINY.content_id_rows(texts), in_graph(TINY, texts))


@settings(max_examples=200, deadline=None)
@given(st.lists(st.text(max_size=20), min_size=1, max_size=6))
def test_any_text_gets_the_in_graph_ids_in_input_order(texts):
    """Any Unicode text (accents, CJK, controls, tabs, lone surrogates as invalid UTF-8 bytes)."""
    utf8 = [text.encode("utf-8", "surrogatepass") for text in texts]
    assert_same_rows(TINY.content_id_rows(utf8), in_graph(TINY, utf8))


@pytest.mark.parametrize(("lowercase", "strip_accents"), [(True, True), (True, False), (False, False), (False, True)])
def test_each_normaliser_setting_gets_the_in_graph_ids(lowercase, strip_accents):
    tokenizer = SentenceTokenizer(TINY_VOCAB, lowercase=lowercase, strip_accents=strip_accents, max_length=64)
    texts = ["Café STRAßE", "İSTANBUL ılık", "ΟΔΟΣ", "e\u0301", "[SEP] [sep] [UNK]", "the\u00a0cat\u2028sat"]
    assert_same_rows(tokenizer.content_id_rows(texts), in_graph(tokenizer, texts))


def test_truncates_like_the_graph():
    texts = ["the cat sat on the mat " * 10]
    (row,) = TINY.content_id_rows(texts)
    assert len(row) == TINY.max_length - 2
    assert_same_rows([row], in_graph(TINY, texts))


def test_the_minilm_vocabulary_agrees_on_the_reference_sentences(minilm_encoder):
    """The 118 sentences the vectors are checked against sentence-transformers on (empty,
    accented, CJK, emoji, over-long texts among them), with the real 30,522-piece vocabulary."""
    with open(os.path.join(FIXTURES, "minilm_reference", "sentences.json"), encoding="utf-8") as f:
        sentences = json.load(f)
    tokenizer = minilm_encoder.tokenizer
    assert_same_rows(tokenizer.content_id_rows(sentences), in_graph(tokenizer, sentences))


@settings(max_examples=150, deadline=None)
@given(st.lists(ASCII_TEXTS, min_size=1, max_size=4))
def test_the_minilm_vocabulary_agrees_on_ascii_texts(minilm_encoder, texts):
    tokenizer = minilm_encoder.tokenizer
    assert_same_rows(tokenizer.content_id_rows(texts), in_graph(tokenizer, texts))
