"""The tokenizer inside a LiteRT file (TF Text's LiteRT kernels with Hugging Face's normaliser table)
gives the SavedModel's ids on the 12,000 hostile texts, run by the LiteRT interpreter, except where
docs/on_device.md says it cannot: special tokens written in a text, and words of 101-400 bytes that are at
most 100 characters long (TF Text bounds a word in bytes, the reference in characters)."""

import json
import os

import numpy as np
import pytest
import tensorflow as tf
import tensorflow_text as tf_text
from ai_edge_litert import interpreter
from tokenizers import Tokenizer

from keras_sentemb import SentenceTokenizer
from keras_sentemb.export.litert_export import TEXTS_SPEC, _converter
from keras_sentemb.export.litert_normalizer import (
    all_code_points,
    hugging_face_bert_normalizer_model,
    normalized_strings,
)
from keras_sentemb.export.litert_text_inputs import LiteRTWordPieceInputs, reachable_token_ids
from keras_sentemb.pretrained.pretrained_weights import resolve_pretrained_dir
from keras_sentemb.runtime.litert_metadata import with_metadata
from keras_sentemb.runtime.litert_runtime import tf_text_kernel_registrars
from tests.conftest import FIXTURES, require_minilm

with open(os.path.join(FIXTURES, "hostile_texts", "texts.json"), encoding="utf-8") as f:
    HOSTILE = json.load(f)


class TokenizerOnly(tf.Module):
    """A file whose output is the packed ids (what the embedding files feed their encoder)."""

    def __init__(self, inputs):
        super().__init__()
        self._inputs = inputs
        self.embed = tf.function(lambda texts: {"token_ids": inputs(texts)["token_ids"]}, input_signature=[TEXTS_SPEC])


@pytest.fixture(scope="module")
def minilm_folder():
    require_minilm()
    return resolve_pretrained_dir("minilm-l6")


def litert_ids(tokenizer, texts, path):
    inputs = LiteRTWordPieceInputs(tokenizer, kept_ids=reachable_token_ids(tokenizer))
    flat_buffer = _converter(TokenizerOnly(inputs), "float32", None).convert()
    with open(path, "wb") as f:
        f.write(with_metadata(flat_buffer, "test", b"{}", signature=("serving_default", ["texts"], ["token_ids"])))
    runner = interpreter.InterpreterWithCustomOps(
        model_path=str(path), custom_op_registerers=tf_text_kernel_registrars()
    ).get_signature_runner("serving_default")
    rows = []
    for start in range(0, len(texts), 1000):
        batch = np.array([t.encode("utf-8") for t in texts[start : start + 1000]], dtype=object)
        for row in runner(texts=batch)["token_ids"]:
            length = int(np.flatnonzero(row == inputs.sep_id)[0]) + 1
            rows.append([inputs.kept_ids[i] for i in row[:length]])
    return rows


def documented_difference(reference, text, special_tokens):
    """A special token written in the text, or a word of over 100 bytes but at most 100 characters."""
    if any(token in text for token in special_tokens):
        return True
    words = reference.pre_tokenizer.pre_tokenize_str(reference.normalizer.normalize_str(text))
    return any(len(word.encode("utf-8")) > 100 >= len(word) for word, _ in words)


def test_the_hostile_texts_get_the_saved_models_ids_but_for_the_documented_cases(minilm_folder, tmp_path):
    tokenizer = SentenceTokenizer(os.path.join(minilm_folder, "vocab.txt"), max_length=256)
    saved_model = tokenizer.pack(tokenizer.content_ids(tf.constant(HOSTILE)))
    expected = [
        row[mask == 1].tolist()
        for row, mask in zip(saved_model["token_ids"].numpy(), saved_model["padding_mask"].numpy())
    ]
    ours = litert_ids(tokenizer, HOSTILE, tmp_path / "tokenizer.tflite")
    reference = Tokenizer.from_file(os.path.join(minilm_folder, "tokenizer.json"))
    differing = {i for i in range(len(HOSTILE)) if ours[i] != expected[i]}
    explained = {
        i for i in range(len(HOSTILE)) if documented_difference(reference, HOSTILE[i], tokenizer.text_special_tokens)
    }
    assert differing <= explained, [
        (HOSTILE[i][:60], ours[i][:10], expected[i][:10]) for i in sorted(differing - explained)[:5]
    ]
    # most texts hold neither case, and they all agree
    assert len(HOSTILE) - len(explained) > 11_000
    assert len(differing) < 600


def test_every_code_point_reads_as_the_reference_normaliser_reads_it(minilm_folder):
    """FastBertNormalize with the table built here writes each code point as `normalized_strings` says."""
    tokenizer = SentenceTokenizer(os.path.join(minilm_folder, "vocab.txt"))
    vocabulary = tuple(tokenizer.vocabulary)
    normalizer = tf_text.FastBertNormalizer(model_buffer=hugging_face_bert_normalizer_model(True, True, vocabulary))
    points = all_code_points()
    written = normalizer.normalize(tf.constant([chr(p).encode("utf-8") for p in points])).numpy()
    strings = normalized_strings(True, True, vocabulary)
    wrong = [hex(p) for p, out in zip(points, written) if out.decode("utf-8") != strings.get(p, chr(p))]
    assert wrong == []
