"""`leading_ids` gives the first ids of a long text from a prefix of it, and they are the ids the
whole text gives: on every tokenizer.json pipeline we ship (WordPiece, byte-level BPE, Unigram,
SentencePiece BPE) and long texts made of the hostile texts (every Unicode space, accents,
combining marks, CJK, emoji, over-long words) joined at random, cut anywhere."""

import json
import os
import random

import pytest
from tokenizers import Tokenizer

from keras_sentemb.pretrained.pretrained_weights import resolve_pretrained_dir
from keras_sentemb.tokenizers.host_wordpiece import leading_ids
from tests.conftest import FIXTURES, require_minilm

with open(os.path.join(FIXTURES, "hostile_texts", "texts.json"), encoding="utf-8") as f:
    HOSTILE = json.load(f)

LIMIT = 64  # long texts start at 4,096 characters


def long_texts(count, seed):
    rng = random.Random(seed)
    texts = []
    for _ in range(count):
        pieces, size = [], rng.randint(4_200, 40_000)
        while sum(map(len, pieces)) < size:
            pieces.append(rng.choice(HOSTILE) + rng.choice(["", " ", "\n", "  ", "\u3000", ".", "\t"]))
        texts.append("".join(pieces)[: rng.randint(4_100, size)])
    # what defeats a short prefix: a word of 10⁵ letters, a run of spaces, no spaces at all
    texts += ["a" * 100_000 + " the end", " " * 50_000 + "word " * 100, "東京" * 30_000]
    return texts


def tokenizer_files():
    files = {
        "byte-level BPE (Qwen)": os.path.join(FIXTURES, "qwen_tokenizer", "tokenizer.json"),
        "SentencePiece BPE (Gemma)": os.path.join(FIXTURES, "gemma_tokenizer", "tokenizer.json"),
        "Unigram": os.path.join(FIXTURES, "unigram_source", "tokenizer.json"),
    }
    return files


def loaded(path):
    """The tokenizer.json without its padding and truncation (as the host tokenizers build it)."""
    tokenizer = Tokenizer.from_file(path)
    tokenizer.no_truncation()
    tokenizer.no_padding()
    return tokenizer


def whole_text_ids(tokenizer, texts, limit):
    return [encoding.ids[:limit] for encoding in tokenizer.encode_batch(texts, add_special_tokens=False)]


@pytest.mark.parametrize("name", sorted(tokenizer_files()))
def test_the_first_ids_of_a_long_text_are_those_of_the_whole_text(name):
    tokenizer = loaded(tokenizer_files()[name])
    texts = long_texts(60, seed=len(name))
    ours = [row.tolist() for row in leading_ids(tokenizer, texts, LIMIT)]
    assert ours == whole_text_ids(tokenizer, texts, LIMIT)


def test_wordpiece_too():
    require_minilm()
    tokenizer = loaded(os.path.join(resolve_pretrained_dir("minilm-l6"), "tokenizer.json"))
    texts = long_texts(60, seed=1)
    ours = [row.tolist() for row in leading_ids(tokenizer, texts, LIMIT)]
    assert ours == whole_text_ids(tokenizer, texts, LIMIT)


def test_short_texts_and_an_empty_list_are_tokenised_whole():
    tokenizer = loaded(tokenizer_files()["Unigram"])
    texts = ["", "a short text", HOSTILE[5]]
    assert [row.tolist() for row in leading_ids(tokenizer, texts, LIMIT)] == whole_text_ids(tokenizer, texts, LIMIT)
    assert leading_ids(tokenizer, [], LIMIT) == []
