"""The byte-level BPE tokenizer (RoBERTa, GPT-2) gives the model's own `tokenizer.json` ids, in-graph:
its pre-tokens are Hugging Face's `ByteLevel` ones on every hostile text, its merges Hugging Face's
BPE, and it saves, reloads and runs in tf.data like every tokenizer of the project. (The 12,000
hostile texts through a whole RoBERTa folder: tests/pretrained/test_sentence_transformers_parity.py.)"""

import json
import os
import random

import keras
import numpy as np
import pytest
import tensorflow as tf
from tokenizers import AddedToken, Tokenizer, models, pre_tokenizers

from keras_sentemb import SentenceEncoder
from keras_sentemb.pretrained import load_tokenizer
from keras_sentemb.tokenizers import ByteLevelBpeTokenizer
from keras_sentemb.tokenizers import byte_level_character_tables as tables
from keras_sentemb.tokenizers.bert_character_table_builder import code_points
from keras_sentemb.tokenizers.byte_level_character_table_builder import probe_tables
from keras_sentemb.tokenizers.byte_level_text_splitter import ByteLevelTextSplitter
from keras_sentemb.tokenizers.byte_pair_merges import BytePairMerges
from keras_sentemb.tokenizers.utf8_text import regex_pieces
from tests.conftest import FIXTURES

FOLDER = os.path.join(FIXTURES, "st_folders", "roberta_mean_normalize_new")
with open(os.path.join(FIXTURES, "hostile_texts", "texts.json"), encoding="utf-8") as f:
    HOSTILE = json.load(f)
EDGES = ["", " ", "  ", "a ", "a  b", "a \tb", "\t\tx", "x\x00y", "\x00", "it's 'S 'sam", "a   'sam", "a\u3000 \u3000b"]
EDGES += ["<s>", "<s><s>", "a<s>", "<s>a</s>", "  <mask>  x", "x<mask>", "\uffff\x00", "a\u2028\u2029 b"]
SPECIALS = ["<s>", "</s>", "<pad>", "<unk>"]


def hugging_face_pre_tokens(texts, add_prefix_space):
    """Hugging Face's pre-tokens (UTF-8 bytes) and whether each is an added token, read through a BPE
    without merges (one token per byte character, grouped by word)."""
    alphabet = ByteLevelBpeTokenizer.byte_alphabet()
    reference = Tokenizer(models.BPE({char: i for i, char in enumerate(alphabet)}, []))
    reference.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=add_prefix_space, use_regex=True)
    reference.add_special_tokens(SPECIALS + [AddedToken("<mask>", lstrip=True, special=True)])
    byte_of = {char: bytes([b]) for b, char in enumerate(alphabet)}
    rows = []
    for text, encoding in zip(texts, reference.encode_batch(texts, add_special_tokens=False)):
        words, previous = [], None
        for token_id, (start, end), word in zip(encoding.ids, encoding.offsets, encoding.word_ids):
            if token_id >= len(alphabet):
                words.append((text[start:end].encode(), True))
                previous = None
                continue
            if word is None or word != previous:
                words.append((b"", False))
                previous = word
            words[-1] = (words[-1][0] + byte_of[alphabet[token_id]], False)
        rows.append(words)
    return rows


@pytest.mark.parametrize("add_prefix_space", [False, True])
def test_pre_tokens_are_hugging_face_byte_level_ones_on_hostile_texts(add_prefix_space):
    texts = HOSTILE[:: 4 if add_prefix_space else 2] + EDGES
    splitter = ByteLevelTextSplitter(SPECIALS + ["<mask>"], lstrip_tokens=["<mask>"], add_prefix_space=add_prefix_space)
    words, special = splitter.words(tf.constant(texts))
    ours = [list(zip(w, s)) for w, s in zip(words.to_list(), special.to_list())]
    expected = hugging_face_pre_tokens(texts, add_prefix_space)
    differ = [i for i in range(len(texts)) if ours[i] != expected[i]]
    assert not differ, [(texts[i][:40], ours[i][:6], expected[i][:6]) for i in differ[:3]]


def test_the_committed_character_tables_are_what_the_installed_tokenizers_does():
    sample = random.Random(1).sample(code_points(), 6_000) + [0x9, 0x20, 0x85, 0xA0, 0x1680, 0x3000, 0x2E55, 0x1734]
    for name, points in probe_tables(sample).items():
        runs = getattr(tables, name.upper())
        assert [p for p in sorted(sample) if any(a <= p <= b for a, b in runs)] == points, name


def test_nul_does_not_end_a_text_when_it_is_cut():
    assert regex_pieces(tf.constant(["a\x00b  c", ""]), " +").to_list() == [[b"a\x00b", b"  ", b"c"], []]


def test_merges_take_the_best_rule_first_and_runs_of_one_rule_left_to_right():
    vocabulary = {"a": 0, "b": 1, "aa": 2, "ab": 3, "aab": 4}
    merges = BytePairMerges(vocabulary, ["a b", "a a", "a ab"])
    words = tf.ragged.constant([[0, 0, 0], [0, 0, 0, 0], [0, 0, 1], [1], []], dtype=tf.int32)
    # "aaa" → "aa a"; "aaaa" → "aa aa"; "aab": "a b" outranks "a a" → "a ab" → "aab".
    assert merges.pieces(words).to_list() == [[2, 0], [2, 2], [4], [1], []]
    with pytest.raises(ValueError, match="'a c'"):
        BytePairMerges(vocabulary, ["a c"])


def test_a_vocabulary_without_every_byte_is_refused():
    with pytest.raises(ValueError, match="lacks 255 of the 256 byte characters"):
        ByteLevelBpeTokenizer({"<s>": 0, "</s>": 1, "<pad>": 2, "<unk>": 3, "<mask>": 4, "a": 5}, [])


@pytest.fixture(scope="module")
def tokenizer():
    return load_tokenizer(FOLDER, max_length=16)


def test_rows_are_truncated_and_packed_as_sentence_transformers_packs_roberta(tokenizer):
    reference = Tokenizer.from_file(os.path.join(FOLDER, "tokenizer.json"))
    reference.enable_truncation(16)
    texts = ["A long sentence " * 9, "short <mask> one", ""]
    expected = [encoding.ids for encoding in reference.encode_batch(texts)]
    packed = tokenizer.pack(tokenizer.content_ids(tf.constant(texts)))
    lengths = packed["padding_mask"].numpy().sum(axis=1)
    assert [row[:n].tolist() for row, n in zip(packed["token_ids"].numpy(), lengths)] == expected
    assert [row.tolist() for row in tokenizer.content_id_rows(texts)] == [ids[1:-1] for ids in expected]


def test_the_tokenizer_runs_in_tf_data_and_comes_back_from_its_config(tokenizer):
    texts = HOSTILE[:64]
    dataset = tf.data.Dataset.from_tensor_slices(texts).batch(16).map(tokenizer.content_ids)
    in_pipeline = [row for batch in dataset for row in batch.to_list()]
    config = {**tokenizer.get_config(), "vocabulary": dict(tokenizer.vocabulary), "merges": list(tokenizer.merges)}
    rebuilt = ByteLevelBpeTokenizer.from_config(config)
    assert rebuilt.content_ids(tf.constant(texts)).to_list() == in_pipeline


def test_a_roberta_encoder_saves_and_loads_as_a_keras_file(tmp_path):
    encoder = SentenceEncoder.from_pretrained(FOLDER)
    encoder.save(tmp_path / "roberta.keras")
    loaded = keras.saving.load_model(tmp_path / "roberta.keras")
    assert type(loaded.tokenizer) is ByteLevelBpeTokenizer
    np.testing.assert_allclose(loaded.encode(HOSTILE[:32]), encoder.encode(HOSTILE[:32]), atol=1e-6)
