"""Qwen2 / Qwen3's pre-tokens, in-graph, are Hugging Face's: the `Split` of Qwen's expression (with its
`\\s+(?!\\S)` look-ahead, which RE2 lacks) on every hostile text, after `NFC`, around added tokens."""

import json
import os

import pytest
import tensorflow as tf
from tokenizers import Regex, normalizers, pre_tokenizers

from keras_sentemb.tokenizers.qwen_text_splitter import QWEN_EXPRESSION, QwenTextSplitter, qwen_pre_tokens
from tests.conftest import FIXTURES

with open(os.path.join(FIXTURES, "hostile_texts", "texts.json"), encoding="utf-8") as f:
    HOSTILE = json.load(f)
# White space before letters, numbers, punctuation and line breaks; punctuation that takes the line
# breaks after it; case-folded contractions; runs at the start and the end.
EDGES = ["a  b", "x \n y", "!\n\nHello", "a\tb", "  ", "\n", " \n \n x", "'S'LL 'Ve", "!\n \nx", "5 5", " !a"]
EDGES += ["a.\r\n\r\n  b  ", "\u3000\u3000x", "ab'ſ", "", "!", "!\n", "a\x00 b", "\u00a0\u00a0é", "x\u2028\u2028!"]
REFERENCE = pre_tokenizers.Split(Regex(QWEN_EXPRESSION), behavior="isolated")


def test_the_pieces_are_hugging_faces_on_every_hostile_text():
    texts = HOSTILE + EDGES
    ours = qwen_pre_tokens(tf.constant(texts)).to_list()
    differ = [
        (text[:40], [piece.decode() for piece in mine][:8])
        for text, mine in zip(texts, ours)
        if [piece.decode() for piece in mine] != [piece for piece, _ in REFERENCE.pre_tokenize_str(text)]
    ]
    assert not differ, (len(differ), differ[:3])


@pytest.mark.parametrize("nfc", [True, False])
def test_words_are_nfc_normalised_and_keep_added_tokens_whole(nfc):
    splitter = QwenTextSplitter(special_tokens=["<|endoftext|>", "<|im_start|>"], nfc=nfc)
    texts = ["e\u0301t\u00e9 <|im_start|>user\n\nhi!<|endoftext|>", "<|endoftext|>", "Å\u212b  x"]
    words, special = splitter.words(tf.constant(texts))
    normalize = normalizers.NFC().normalize_str if nfc else (lambda text: text)
    expected = [
        [piece for piece, _ in REFERENCE.pre_tokenize_str(normalize("e\u0301t\u00e9 "))]
        + ["<|im_start|>"]
        + [piece for piece, _ in REFERENCE.pre_tokenize_str("user\n\nhi!")]
        + ["<|endoftext|>"],
        ["<|endoftext|>"],
        [piece for piece, _ in REFERENCE.pre_tokenize_str(normalize("Å\u212b  x"))],
    ]
    assert [[w.decode() for w in row] for row in words.to_list()] == expected
    assert [sum(row) for row in special.to_list()] == [2, 1, 0]
