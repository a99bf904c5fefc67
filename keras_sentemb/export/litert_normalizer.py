"""A model for TF Text's `FastBertNormalizer` op that normalises as Hugging Face's `BertNormalizer`
does, and spaces or masks characters so that TF Text's word splitting matches `BertPreTokenizer`'s.

`FastBertNormalize` (which has a LiteRT kernel) maps each code point through a table: a darts-clone
double-array trie over the code point's UTF-8 bytes, whose value is the offset and length of the
normalised string in a pool (`tensorflow_text/core/kernels/fast_bert_normalizer.h`). TF Text builds
that table from ICU (NFKC case folding, control characters to spaces); this module builds it from the
reference itself, code point by code point, so that a LiteRT file reads text as the model's
`tokenizer.json` does:

- every code point's string is Hugging Face's `BertNormalizer(...).normalize_str(chr(cp))`: control,
  format, private-use and unassigned characters deleted, every space a space, CJK ideographs spaced,
  lower-cased and accents stripped the reference's way (per character, "ß" stays "ß");
- where TF Text's `FastWordpieceTokenizer` and Hugging Face's `BertPreTokenizer` disagree on whether a
  character of that string ends a word (their Unicode tables differ), the string is changed so that the
  words come out the same: a character only the reference splits off is spaced (`" x "`), a space only
  the reference sees becomes `" "`, and a character only TF Text splits off (and that no vocabulary
  entry contains) becomes `MASK_CHARACTER`, which no entry contains either, so its word is "[UNK]" as in
  the reference.
"""

from __future__ import annotations

import functools

import flatbuffers
import numpy as np
import tensorflow as tf
import tensorflow_text as tf_text
from tokenizers import normalizers, pre_tokenizers

from keras_sentemb.export.double_array_trie import double_array

# Bits of a value in the pool table (`text_norm` in fast_bert_normalizer.h).
DIFFERENT_MASK = 0x40000000
LENGTH_BITS = 6
MAX_NORMALIZED_BYTES = (1 << LENGTH_BITS) - 1
# A private-use character: TF Text reads it as a letter, and the reference deletes it from any text, so
# no vocabulary entry holds it.
MASK_CHARACTER = "\ue000"
# How each splitter reads a character between two letters: one word, a space, or a word of its own.
JOINS, SPACE, SPLITS_OFF = 1, 2, 3


def all_code_points():
    """Every Unicode scalar value (surrogates excluded)."""
    return [point for point in range(0x110000) if not 0xD800 <= point <= 0xDFFF]


def reference_classes(characters):
    """{character: JOINS | SPACE | SPLITS_OFF} as Hugging Face's `BertPreTokenizer` reads it in "b·b"."""
    splitter = pre_tokenizers.BertPreTokenizer()
    return {character: len(splitter.pre_tokenize_str(f"b{character}b")) for character in characters}


def tf_text_classes(characters):
    """{character: JOINS | SPACE | SPLITS_OFF} as TF Text's end-to-end `FastWordpieceTokenizer` reads
    it in "b·b" (vocabulary "b" and "[UNK]": one unknown word, two "b", or three pieces)."""
    characters = list(characters)
    tokenizer = tf_text.FastWordpieceTokenizer(
        vocab=["[UNK]", "b"], token_out_type=tf.int32, no_pretokenization=False, support_detokenization=False
    )
    counts = tokenizer.tokenize(tf.constant([f"b{character}b".encode() for character in characters])).row_lengths()
    return dict(zip(characters, counts.numpy().tolist(), strict=True))


@functools.lru_cache(maxsize=4)
def _normalized_code_points(lowercase, strip_accents):
    """The part of `normalized_strings` the vocabulary does not change, computed once a process per option pair
    (~6 s of Python over 1.1M code points; a process that exports several models pays it once):

    - {code point: Hugging Face's `BertNormalizer` output} where that is not the character itself, None for
      a CJK ideograph it spaces and TF Text splits off itself;
    - {character: (Hugging Face's word class, TF Text's)} for the characters of any output the two read
      differently."""
    normalizer = normalizers.BertNormalizer(
        clean_text=True,
        handle_chinese_chars=True,
        strip_accents=strip_accents,
        lowercase=lowercase,
    )
    changed, characters = {}, set()
    for point in all_code_points():
        text = normalizer.normalize_str(chr(point))
        characters.update(text)
        if text != chr(point):
            changed[point] = text
    characters = sorted(characters - {" "})
    reference, ours = reference_classes(characters), tf_text_classes(characters)
    for point, text in changed.items():
        if text == f" {chr(point)} " and ours.get(chr(point)) == SPLITS_OFF:
            changed[point] = None  # a CJK ideograph: TF Text splits it off itself, unspaced (~90,000 entries saved)
    disagreements = {c: (reference[c], ours[c]) for c in characters if reference[c] != ours[c]}
    return changed, disagreements


def normalized_strings(lowercase, strip_accents, vocabulary):
    """{code point: the string the LiteRT normaliser writes for it} for the code points whose string is
    not the character itself (see the module docstring)."""
    changed, disagreements = _normalized_code_points(lowercase, strip_accents)
    in_vocabulary = set("".join(vocabulary))
    fixes = {}
    for character, (reference, _) in disagreements.items():
        if reference == SPACE:
            fixes[character] = " "
        elif reference == SPLITS_OFF:
            fixes[character] = f" {character} "
        elif character not in in_vocabulary:
            fixes[character] = MASK_CHARACTER
    strings = {}
    for point, text in changed.items():
        if text is None:
            continue
        text = "".join(
            character if _spaced(text, index) else fixes.get(character, character)
            for index, character in enumerate(text)
        )
        if text != chr(point):
            strings[point] = text
    for character, fixed in fixes.items():  # characters the normaliser leaves as they are
        if ord(character) not in changed:
            strings[ord(character)] = fixed
    return dict(sorted(strings.items()))


def _spaced(text, index):
    """Whether `text[index]` stands between two spaces (a CJK ideograph as the normaliser writes it): a
    word of its own whichever way a splitter reads it."""
    return 0 < index < len(text) - 1 and text[index - 1] == " " and text[index + 1] == " "


def _model_flatbuffer(trie, data_for_code_point_zero, pool):
    """`FastBertNormalizerModel` (fast_bert_normalizer_model.fbs): lower_case_nfd_strip_accents (unused
    by the op), trie_array, data_for_codepoint_zero, normalized_string_pool."""
    builder = flatbuffers.Builder(len(pool) + 4 * len(trie) + 1024)
    pool_offset = builder.CreateNumpyVector(np.frombuffer(pool, dtype=np.uint8))
    trie_offset = builder.CreateNumpyVector(trie)
    builder.StartObject(4)
    builder.PrependUOffsetTRelativeSlot(3, pool_offset, 0)
    builder.PrependInt32Slot(2, data_for_code_point_zero, 0)
    builder.PrependUOffsetTRelativeSlot(1, trie_offset, 0)
    builder.PrependBoolSlot(0, True, False)
    builder.Finish(builder.EndObject())
    return bytes(builder.Output())


@functools.lru_cache(maxsize=4)
def hugging_face_bert_normalizer_model(lowercase: bool, strip_accents: bool, vocabulary: tuple[str, ...]) -> bytes:
    """The `model_buffer` of a `tf_text.FastBertNormalizer` that writes each code point as
    `normalized_strings` says (Hugging Face's normaliser, word boundaries made TF Text's).

    Example:
    >>> vocabulary = ("[UNK]", "straße", "cafe", "東", "京")
    >>> normalizer = tf_text.FastBertNormalizer(model_buffer=hugging_face_bert_normalizer_model(True, True, vocabulary))
    >>> [t.decode() for t in normalizer.normalize(tf.constant(["Straße\\x00Café 東京"])).numpy()]
    ['straßecafe 東京']
    """
    strings = normalized_strings(lowercase, strip_accents, vocabulary)
    pool = bytearray()
    pool_offsets = {}
    values = {}
    for point, text in strings.items():
        encoded = text.encode("utf-8")
        if len(encoded) > MAX_NORMALIZED_BYTES:
            raise ValueError(f"U+{point:04X} normalises to {len(encoded)} bytes, over {MAX_NORMALIZED_BYTES}")
        value = DIFFERENT_MASK
        if encoded:
            if encoded not in pool_offsets:
                found = pool.find(encoded)
                pool_offsets[encoded] = found if found >= 0 else len(pool)
                if found < 0:
                    pool.extend(encoded)
            value |= len(encoded) | (pool_offsets[encoded] << LENGTH_BITS)
        values[point] = value
    zero = values.pop(0, 0)
    keys_and_values = sorted((chr(point).encode("utf-8"), value) for point, value in values.items())
    return _model_flatbuffer(double_array(keys_and_values), zero, bytes(pool))
