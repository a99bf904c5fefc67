"""valid_utf8: invalid byte sequences become U+FFFD, valid text passes unchanged, in a graph too."""

import tensorflow as tf

from keras_sentemb.tokenizers.utf8_text import valid_utf8

REPLACEMENT = "\ufffd".encode()


def test_valid_text_is_unchanged():
    texts = ["straße", "日本語", "🙂 emoji", ""]
    assert valid_utf8(tf.constant(texts)).numpy().tolist() == [t.encode() for t in texts]


def test_each_invalid_sequence_becomes_one_replacement_character():
    got = valid_utf8(tf.constant([b"ok \xff", b"\xc3", b"a\x80b"])).numpy().tolist()
    assert got == [b"ok " + REPLACEMENT, REPLACEMENT, b"a" + REPLACEMENT + b"b"]


def test_it_runs_inside_a_traced_function():
    traced = tf.function(valid_utf8, input_signature=[tf.TensorSpec([None], tf.string)])
    assert traced(tf.constant([b"x\xfe"])).numpy().tolist() == [b"x" + REPLACEMENT]
