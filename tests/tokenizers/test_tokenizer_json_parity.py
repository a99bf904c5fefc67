"""The in-graph tokenizer gives the model's own `tokenizer.json` ids (Hugging Face `tokenizers`)
for every text: 12,000 hostile texts (every Unicode space and separator, controls, accents,
Greek, Turkish, CJK, emoji, ligatures, full-width forms, special tokens, over-long words; see
tests/fixtures/hostile_texts/make_hostile_texts.py) with the all-MiniLM-L6-v2 tokenizer and with
its normaliser's other settings. benchmarks/tokenizer_parity.py adds every code point."""

import json
import os
import random

import numpy as np
import pytest
import tensorflow as tf
from tokenizers import Tokenizer

from keras_sentemb import SentenceTokenizer
from keras_sentemb.pretrained.pretrained_weights import resolve_pretrained_dir
from keras_sentemb.tokenizers import bert_character_tables as tables
from keras_sentemb.tokenizers.bert_character_table_builder import code_points, probe_tables
from tests.conftest import FIXTURES, require_minilm

with open(os.path.join(FIXTURES, "hostile_texts", "texts.json"), encoding="utf-8") as f:
    HOSTILE = json.load(f)


@pytest.fixture(scope="module")
def minilm_folder():
    require_minilm()
    return resolve_pretrained_dir("minilm-l6")


def reference_ids(folder, texts, **normalizer):
    """The ids of the folder's tokenizer.json (its normaliser settings replaced by `normalizer`)."""
    with open(os.path.join(folder, "tokenizer.json"), encoding="utf-8") as f:
        config = json.load(f)
    config["normalizer"].update(normalizer)
    reference = Tokenizer.from_str(json.dumps(config))
    reference.no_truncation()
    reference.no_padding()
    return [encoding.ids for encoding in reference.encode_batch(texts, add_special_tokens=False)]


def in_graph_ids(folder, texts, **settings):
    tokenizer = SentenceTokenizer(os.path.join(folder, "vocab.txt"), max_length=1_000_000, **settings)
    return tokenizer.content_ids(tf.constant(texts)).to_list()


def first_differences(texts, ours, expected):
    return [(texts[i][:60], ours[i][:12], expected[i][:12]) for i in range(len(texts)) if ours[i] != expected[i]][:3]


def test_the_corpus_covers_what_the_issue_names():
    text = "".join(HOSTILE)
    assert len(HOSTILE) >= 10_000
    for char in ["\u00a0", "\u2009", "\u202f", "\u3000", "\u1680", "\u2028", "\u2029", "\x00", "\u200b", "\ufeff"]:
        assert char in text
    for piece in ["\u0301", "ΟΔΟΣ", "İ", "ı", "東", "한", "👍🏽", "\u200d", "ﬁ", "ＡＢＣ", "[SEP]"]:
        assert piece in text


def test_in_graph_ids_are_the_tokenizer_json_ids_on_every_hostile_text(minilm_folder):
    ours = in_graph_ids(minilm_folder, HOSTILE)
    expected = reference_ids(minilm_folder, HOSTILE)
    assert sum(map(len, expected)) > 200_000
    assert ours == expected, first_differences(HOSTILE, ours, expected)


@pytest.mark.parametrize(("lowercase", "strip_accents"), [(False, False), (True, False), (False, True)])
def test_every_normaliser_setting_gives_the_tokenizer_json_ids(minilm_folder, lowercase, strip_accents):
    texts = HOSTILE[::4]
    ours = in_graph_ids(minilm_folder, texts, lowercase=lowercase, strip_accents=strip_accents)
    expected = reference_ids(minilm_folder, texts, lowercase=lowercase, strip_accents=strip_accents)
    assert ours == expected, first_differences(texts, ours, expected)


def test_host_rows_are_the_tokenizer_json_ids_truncated(minilm_encoder, minilm_folder):
    limit = minilm_encoder.tokenizer.max_length - 2
    rows = minilm_encoder.tokenizer.content_id_rows(HOSTILE)
    expected = reference_ids(minilm_folder, HOSTILE)
    assert [row.tolist() for row in rows] == [ids[:limit] for ids in expected]


def test_the_committed_character_tables_are_what_the_installed_tokenizers_does():
    """A sample of code points probed afresh (the builder rebuilds all of them in ~10 s)."""
    everything = code_points()
    sample = random.Random(0).sample(everything, 12_000) + [0xA0, 0x2028, 0x3A3, 0x130, 0x1734, 0x2E55, 0x105C9]
    probed, lowercase = probe_tables(sample)
    for name, points in probed.items():
        runs = getattr(tables, name.upper())
        committed = [p for p in sorted(sample) if any(first <= p <= last for first, last in runs)]
        assert committed == points, name
    sampled = set(sample)
    committed_lower = {p: chr(q) for p, q in tables.LOWERCASE if p in sampled}
    committed_lower.update({p: s for p, s in tables.LOWERCASE_EXPANSIONS.items() if p in sampled})
    assert committed_lower == lowercase


def test_an_over_long_word_is_unknown_by_characters_not_bytes(minilm_folder):
    """Hugging Face counts a word's characters (100 at most), TF Text its bytes."""
    texts = ["α" * 100, "α" * 101, "a" * 100, "a" * 101]
    assert in_graph_ids(minilm_folder, texts) == reference_ids(minilm_folder, texts)
    assert np.asarray(in_graph_ids(minilm_folder, texts[1:2])).tolist() == [[100]]


@pytest.mark.parametrize("name", ["bert_mean_normalize_old", "mpnet_mean_normalize_old", "bert_cls_max_dense_new"])
def test_pairs_get_the_tokenizer_json_pair_ids(name):
    from keras_sentemb.pretrained.tokenizer_json import load_tokenizer

    folder = os.path.join(FIXTURES, "st_folders", name)
    first = [text for text in HOSTILE[:400] if len(text) < 40][:60]
    second = list(reversed(first))
    reference = Tokenizer.from_file(os.path.join(folder, "tokenizer.json"))
    reference.no_truncation()
    reference.no_padding()
    expected = [encoding.ids for encoding in reference.encode_batch(list(zip(first, second)))]
    ids, _ = load_tokenizer(folder, max_length=1_000).pair_ids(tf.constant(first), tf.constant(second))
    assert first_differences(first, ids.to_list(), expected) == []
