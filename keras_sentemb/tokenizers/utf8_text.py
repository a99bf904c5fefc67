"""valid_utf8: the first step of every tokenizer, in-graph, so bad bytes never fail a request."""

import tensorflow as tf


def valid_utf8(texts):
    """A 1-D `tf.string` tensor with each invalid UTF-8 sequence replaced by U+FFFD.

    >>> valid_utf8(tf.constant([b"caf\\xc3\\xa9", b"bad \\xff"])).numpy().tolist()
    [b'caf\\xc3\\xa9', b'bad \\xef\\xbf\\xbd']
    """
    return tf.strings.unicode_transcode(
        texts,
        input_encoding="UTF-8",
        output_encoding="UTF-8",
        errors="replace",
        replacement_char=0xFFFD,
    )
