"""Hugging Face's `Lowercase`, in-graph: character by character with the installed `tokenizers`' own map (no
final sigma, NUL kept, Unicode newer than TF's ICU), on every seventh code point and every hostile text."""

import json
import os

import tensorflow as tf
from tokenizers import normalizers

from keras_sentemb.tokenizers.bert_character_table_builder import code_points
from keras_sentemb.tokenizers.unicode_lowercase import UnicodeLowercase
from tests.conftest import FIXTURES

with open(os.path.join(FIXTURES, "hostile_texts", "texts.json"), encoding="utf-8") as f:
    HOSTILE = json.load(f)


def test_lowers_as_hugging_face_does():
    texts = HOSTILE + [f"A{chr(point)}B" for point in code_points()[::7]] + ["ΟΔΟΣ", "İSTANBUL", "Ⱟ\x00B"]
    reference = normalizers.Lowercase()
    ours = [text.decode("utf-8") for text in UnicodeLowercase()(tf.constant(texts)).numpy()]
    differ = [(text, mine) for text, mine in zip(texts, ours) if mine != reference.normalize_str(text)]
    assert not differ, (len(differ), differ[:3])
