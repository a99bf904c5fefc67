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


# No valid UTF-8 text holds the byte 0xFF: it marks where to cut.
_CUT = b"\xff"


def regex_pieces(texts, pattern, keep_pattern=None):
    """`tf_text.regex_split` for texts of valid UTF-8 that may hold NUL (which `regex_split` takes
    for the end of the text): each text cut before and after every match of `pattern`, the matches
    kept as pieces, empty pieces dropped (`keep_pattern`, for `regex_split`'s signature, must be
    `pattern` or None).

    >>> regex_pieces(tf.constant(["a\\x00b  c"]), " +").to_list()
    [[b'a\\x00b', b'  ', b'c']]
    """
    if keep_pattern not in (None, pattern):
        raise ValueError("regex_pieces keeps every match of its pattern")
    marked = tf.strings.regex_replace(texts, f"({pattern})", _CUT + b"\\1" + _CUT)
    pieces = tf.strings.split(marked, sep=_CUT)
    return tf.ragged.boolean_mask(pieces, pieces != "")
