"""NFC as Hugging Face computes it, in-graph: TF Text's ICU is newer and composes 21 characters that
`tokenizers` leaves apart; cut between those pairs, the rest is ICU's. Every seventh code point in three
contexts and every hostile text."""

import json
import os

import tensorflow as tf
from tokenizers import normalizers

from keras_sentemb.tokenizers.bert_character_table_builder import code_points
from keras_sentemb.tokenizers.unicode_normalization import HuggingFaceNormalization, unshared_compositions
from tests.conftest import FIXTURES

with open(os.path.join(FIXTURES, "hostile_texts", "texts.json"), encoding="utf-8") as f:
    HOSTILE = json.load(f)


def test_the_compositions_icu_adds_are_found():
    assert ("\U000113c2", "\U000113c2") in unshared_compositions("NFC")  # Tulu-Tigalari, Unicode 16


def test_normalises_as_hugging_face_does():
    points = code_points()[::7] + [0x113C2, 0x1611E, 0x16D67, 0x11935]
    texts = HOSTILE + [t for p in points for t in (f"a{chr(p)}b", f"A{chr(p)}", chr(p) * 2)]
    texts += ["\U000113c2\U000113c2", "\U0001611e\U0001611e\U0001611f", "\U00011935\U00011930", "e\u0301\u0316", ""]
    reference = normalizers.NFC()
    ours = [text.decode("utf-8") for text in HuggingFaceNormalization("NFC")(tf.constant(texts)).numpy()]
    differ = [(text, mine) for text, mine in zip(texts, ours) if mine != reference.normalize_str(text)]
    assert not differ, (len(differ), differ[:3])
