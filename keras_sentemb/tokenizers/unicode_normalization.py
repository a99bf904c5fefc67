"""HuggingFaceNormalization: NFC in TF ops as Hugging Face `tokenizers` computes it.

TF Text's `normalize_utf8` runs ICU, whose Unicode is newer than the Rust `unicode-normalization` tables of
`tokenizers`: ICU composes pairs that Hugging Face leaves apart (Tulu-Tigalari, Gurung Khema, Kirat Rai
vowel signs of Unicode 16, Dives Akuru's U+11938, two Vithkuqi letters with U+0307 …; 21 composites with
`tokenizers` 0.23). Here the text is cut between the two characters of every such pair and each piece
is normalised on its own: a starter pair never composes across the cut, and everything else normalises
as ICU does (0 of 3,336,204 code-point texts and 12,000 hostile texts differ). The pairs are read once a
process from both libraries, in about half a second (`unshared_compositions`). Not covered: a Vithkuqi
letter and U+0307 with another combining mark between them. NFKC is not offered: ICU also decomposes
characters that Hugging Face keeps (U+32FF ㋿ → 令和, Unicode 16's outlined letters …: 511 of the same texts).

Example:
>>> nfc = HuggingFaceNormalization("NFC")
>>> [hex(ord(c)) for c in nfc(tf.constant(["\\U000113c2\\U000113c2 e\\u0301"])).numpy()[0].decode()]
['0x113c2', '0x113c2', '0x20', '0xe9']
"""

import functools

import tensorflow as tf
import tensorflow_text as tf_text
from tokenizers import normalizers

from keras_sentemb.tokenizers.bert_character_table_builder import code_points

_DECOMPOSED = {"NFC": "NFD"}


# Code points normalised by ICU a call: the whole range at once held ~350 MiB of strings and tensors at the peak
# (a tokenizer of a Qwen folder cost that before any of its checks could refuse it); 65,536 a call, ~20 MiB.
CHUNK = 1 << 16


def _icu_forms(points, form):
    """(character, ICU's `form` of it) for each code point of `points`, a chunk at a time."""
    for start in range(0, len(points), CHUNK):
        characters = [chr(point) for point in points[start : start + CHUNK]]
        forms = tf_text.normalize_utf8(tf.constant(characters), form).numpy()
        yield from zip(characters, (text.decode("utf-8") for text in forms))


@functools.lru_cache(maxsize=2)
def unshared_compositions(form="NFC"):
    """Sorted `(first, second)` character pairs that ICU's `form` composes and Hugging Face's does not:
    every adjacent pair of the decomposition of a character whose decomposition the two libraries
    disagree on, and each composed prefix with the character after it."""
    decomposed = _DECOMPOSED[form]
    reference = getattr(normalizers, decomposed)()
    pairs = set()
    for character, sequence in _icu_forms(code_points(), decomposed):
        if sequence == character or reference.normalize_str(character) == sequence:
            continue
        for index in range(1, len(sequence)):
            pairs.add((sequence[index - 1], sequence[index]))
            prefix = tf_text.normalize_utf8(tf.constant([sequence[:index]]), form).numpy()[0].decode("utf-8")
            if len(prefix) == 1:
                pairs.add((prefix, sequence[index]))
    return sorted(pairs)


class HuggingFaceNormalization(tf.Module):
    """`form` ("NFC") on a 1-D `tf.string` tensor of valid UTF-8, as Hugging Face normalises."""

    def __init__(self, form="NFC"):
        super().__init__(name=f"hugging_face_{form.lower()}")
        if form not in _DECOMPOSED:
            raise ValueError(f"HuggingFaceNormalization: form must be NFC, got {form!r}")
        self.form = form
        pairs = unshared_compositions(form)
        self._cuts = (
            tf.lookup.StaticHashTable(
                tf.lookup.KeyValueTensorInitializer(
                    tf.constant([first + "\x00" + second for first, second in pairs]), tf.ones([len(pairs)], tf.bool)
                ),
                default_value=False,
            )
            if pairs
            else None
        )

    def __call__(self, texts):
        if self._cuts is None:
            return tf_text.normalize_utf8(texts, self.form)
        characters = tf.strings.unicode_split(texts, "UTF-8")
        flat = characters.flat_values
        index = tf.range(tf.size(flat, out_type=tf.int64))
        rows = characters.value_rowids()
        first_of_row = index == tf.gather(characters.row_splits, rows)
        before = tf.concat([[""], flat[:-1]], axis=0)[: tf.size(flat)]
        cut = self._cuts.lookup(tf.strings.join([before, flat], separator="\x00")) & ~first_of_row
        starts = first_of_row | cut
        piece = tf.cumsum(tf.cast(starts, tf.int64)) - 1
        count = tf.reduce_sum(tf.cast(starts, tf.int64))
        pieces = tf.strings.unsorted_segment_join(flat, piece, count)
        normalized = tf_text.normalize_utf8(pieces, self.form)
        row_of_piece = tf.boolean_mask(rows, starts)
        return tf.strings.unsorted_segment_join(normalized, row_of_piece, tf.shape(texts, out_type=tf.int64)[0])
