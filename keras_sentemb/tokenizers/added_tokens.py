"""Added tokens (special tokens and the like) written in raw text: cut out first and kept whole,
as Hugging Face `tokenizers` does before it normalises or pre-tokenises the text between them."""

import re

import tensorflow as tf
import tensorflow_text as tf_text


def longest_first(tokens):
    """Distinct tokens, longest first (RE2 takes the first alternative that matches, Hugging Face the
    longest token)."""
    return sorted(set(tokens), key=lambda token: (-len(token), token))


def alternatives(tokens, lstrip=(), rstrip=(), space_class=""):
    """An RE2 pattern matching any of `tokens`; a token in `lstrip` (`rstrip`) takes the white space
    (`space_class`, an RE2 character class) on its left (right) with it, as an added token with
    `lstrip` (`rstrip`) does.

    >>> alternatives(["<s>", "<mask>"], lstrip=["<mask>"], space_class="[ ]")
    '[ ]*<mask>|<s>'
    """
    patterns = []
    for token in longest_first(tokens):
        pattern = re.escape(token)
        if token in lstrip:
            pattern = f"{space_class}*{pattern}"
        if token in rstrip:
            pattern = f"{pattern}{space_class}*"
        patterns.append(pattern)
    return "|".join(patterns)


def split_keeping_specials(texts, pattern, split, regex_split=tf_text.regex_split, starts=False):
    """`(words, is_special)` of each text of a 1-D string tensor, two `tf.RaggedTensor`s [batch, (words)]:
    every match of `pattern` is one word, itself, marked special; the text between matches is split by
    `split` (1-D strings → ragged words); `regex_split(texts, pattern, pattern)` cuts the text. With
    `starts`, `split(pieces, at_start)` also gets whether each piece begins its text (Metaspace's
    "first" scheme prepends to that piece only)."""
    if not pattern:
        words = split(texts, tf.ones_like(texts, dtype=tf.bool)) if starts else split(texts)
        return words, tf.zeros_like(words, dtype=tf.bool)
    pieces = regex_split(texts, pattern, pattern)
    flat = pieces.flat_values
    special = tf.strings.regex_full_match(flat, pattern)
    if starts:
        index = tf.range(tf.size(flat, out_type=tf.int64))
        words = split(flat, index == tf.gather(pieces.row_splits, pieces.value_rowids()))
    else:
        words = split(flat)
    # A special piece is one word, itself; any other piece is the words it splits into.
    kept_words = tf.ragged.boolean_mask(words, words.with_flat_values(tf.repeat(~special, words.row_lengths())))
    specials = tf.RaggedTensor.from_row_lengths(flat, tf.ones_like(words.row_lengths()), validate=False)
    kept_specials = tf.ragged.boolean_mask(specials, specials.with_flat_values(special))
    piece_words = tf.concat([kept_specials, kept_words], axis=1)
    marks = tf.concat(
        [
            tf.ones_like(kept_specials, dtype=tf.bool),
            tf.zeros_like(kept_words, dtype=tf.bool),
        ],
        axis=1,
    )
    rows = pieces.row_splits
    return (
        tf.RaggedTensor.from_row_splits(piece_words, rows, validate=False).merge_dims(1, 2),
        tf.RaggedTensor.from_row_splits(marks, rows, validate=False).merge_dims(1, 2),
    )


def ids_in_word_order(words, is_special, pieces, special_ids):
    """The ids of each text, in order: `words`/`is_special` ragged [texts, (words)], `pieces` ragged
    [ordinary words, (ids)] for the words that are not added tokens (in order), `special_ids` the id of
    every word (read where it is an added token). Returns a `tf.RaggedTensor` [texts, (ids)] int32."""
    flat_special = is_special.flat_values
    lengths = tf.tensor_scatter_nd_update(
        tf.ones_like(flat_special, dtype=tf.int64), tf.where(~flat_special), pieces.row_lengths()
    )
    at_special = tf.repeat(flat_special, lengths)
    values = tf.zeros([tf.reduce_sum(lengths)], tf.int32)
    values = tf.tensor_scatter_nd_update(values, tf.where(~at_special), tf.cast(pieces.flat_values, tf.int32))
    values = tf.tensor_scatter_nd_update(
        values, tf.where(at_special), tf.cast(tf.boolean_mask(special_ids, flat_special), tf.int32)
    )
    word_ids = tf.RaggedTensor.from_row_lengths(values, lengths, validate=False)
    return tf.RaggedTensor.from_row_splits(word_ids, words.row_splits, validate=False).merge_dims(1, 2)
