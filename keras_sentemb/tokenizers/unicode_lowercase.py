"""UnicodeLowercase: Hugging Face's `Lowercase` normaliser in TF ops, character by character.

Hugging Face lowers each character on its own with Rust's Unicode tables (`char::to_lowercase`: "İ"
becomes "i̇", a final "Σ" stays "σ"). `tf.strings.lower` differs in three ways: it applies the final-sigma
rule, stops at a NUL, and carries an older Unicode (it leaves "Ⱟ", U+1C89 … as they are). So the map is
read from the installed `tokenizers` itself — every code point that `Lowercase` changes, and what it
becomes — and applied per character with a lookup table.

Example:
>>> lower = UnicodeLowercase()
>>> [t.decode() for t in lower(tf.constant(["ΟΔΟΣ İ", "Ⱟ\\x00B"])).numpy()]
['οδοσ i̇', 'ⱟ\\x00b']
"""

import functools

import tensorflow as tf
from tokenizers import normalizers

from keras_sentemb.tokenizers.bert_character_table_builder import code_points

_SEPARATOR = "\x00"  # lowers to itself; no lowered character contains it


@functools.lru_cache(maxsize=1)
def lowercase_map():
    """`{character: its lowercase}` for every code point Hugging Face's `Lowercase` changes."""
    characters = [chr(point) for point in code_points() if point != 0]
    lowered = normalizers.Lowercase().normalize_str(_SEPARATOR.join(characters)).split(_SEPARATOR)
    if len(lowered) != len(characters):
        raise RuntimeError("Lowercase changed the separator: the character map cannot be read")
    return {char: low for char, low in zip(characters, lowered) if char != low}


class UnicodeLowercase(tf.Module):
    """Hugging Face's `Lowercase` on a 1-D `tf.string` tensor of valid UTF-8 (see the module docstring)."""

    def __init__(self):
        super().__init__(name="unicode_lowercase")
        mapping = lowercase_map()
        self._table = tf.lookup.StaticHashTable(
            tf.lookup.KeyValueTensorInitializer(tf.constant(list(mapping)), tf.constant(list(mapping.values()))),
            default_value=b"\xff",  # not valid UTF-8: never a lowered character
        )

    def __call__(self, texts):
        characters = tf.strings.unicode_split(texts, "UTF-8")
        flat = characters.flat_values
        lowered = self._table.lookup(flat)
        lowered = tf.where(lowered == b"\xff", flat, lowered)
        return tf.strings.reduce_join(characters.with_flat_values(lowered), axis=1)
