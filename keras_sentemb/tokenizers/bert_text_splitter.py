"""BertTextSplitter: raw strings to the words BERT's WordPiece reads, in TF ops, exactly as a
model's `tokenizer.json` (Hugging Face `BertNormalizer` + `BertPreTokenizer`) splits them."""

import re

import tensorflow as tf
import tensorflow_text as tf_text

from keras_sentemb.tokenizers import bert_character_tables as tables
from keras_sentemb.tokenizers.added_tokens import alternatives, longest_first, split_keeping_specials
from keras_sentemb.tokenizers.utf8_text import valid_utf8


def character_class(runs):
    """An RE2 character class matching the inclusive code-point runs `[(first, last), …]`.

    >>> character_class([(0x41, 0x5A), (0x2028, 0x2028)])
    '[\\\\x{41}-\\\\x{5A}\\\\x{2028}]'
    """
    parts = [f"\\x{{{first:X}}}" if first == last else f"\\x{{{first:X}}}-\\x{{{last:X}}}" for first, last in runs]
    return "[" + "".join(parts) + "]"


_DELETED = character_class(tables.DELETED)
_WHITESPACE = character_class(tables.WHITESPACE)
_CJK = character_class(tables.CJK)
_NONSPACING_MARKS = character_class(tables.NONSPACING_MARKS)
_PUNCTUATION = character_class(tables.PUNCTUATION)
_SPLIT = f" |{_PUNCTUATION}"
# Stand-ins for the characters that TF Text's NFD would decompose and Hugging Face's keeps whole
# (tables.NFD_KEPT), held through NFD: private-use code points, which the clean-up has deleted
# from the text, so none can be there already.
_SHIELD_BASE = 0xF0000


def map_code_points(texts, mapping):
    """Each character of valid UTF-8 `texts` (a 1-D `tf.string` tensor) replaced by
    `mapping[code point]` where it has one (`{int: int}`, one character to one).

    >>> map_code_points(tf.constant(["ABC"]), {0x41: 0x61, 0x43: 0x63}).numpy().tolist()
    [b'aBc']
    """
    keys = sorted(mapping)
    points = tf.strings.unicode_decode(texts, "UTF-8")
    flat = points.flat_values
    sources = tf.constant(keys, tf.int32)
    at = tf.minimum(tf.searchsorted(sources, flat), len(keys) - 1)
    targets = tf.constant([mapping[key] for key in keys], tf.int32)
    mapped = tf.where(tf.gather(sources, at) == flat, tf.gather(targets, at), flat)
    return tf.strings.unicode_encode(points.with_flat_values(mapped), "UTF-8")


class BertTextSplitter:
    """Splits texts into the words of BERT's reference tokenizer, in-graph.

    The steps and their order are Hugging Face's (a model's `tokenizer.json`):
    1. special tokens written in the raw text ("[SEP]", exact case) are cut out first and kept
       whole: they are never normalised (`added_tokens` with `normalized: false`); tokens with
       `normalized: true` (`normalized_special_tokens`) are cut out of the normalised text, by
       their normalised form, after step 5;
    2. clean-up: control, format and private-use characters, NUL and U+FFFD are deleted; every
       white-space character (NBSP, U+2000–U+200A, U+202F, U+3000, U+2028 …) becomes a space;
    3. CJK ideographs get a space on each side;
    4. accents (`strip_accents`): NFD, then non-spacing marks deleted;
    5. lower-casing (`lowercase`), character by character (Σ → σ wherever it stands);
    6. split on spaces and on punctuation, each punctuation character a word of its own;
    7. a word longer than `max_word_chars` characters becomes `oov_token`.

    Which character is which (steps 2–6) is not TensorFlow's Unicode tables but those of the
    Hugging Face library, read from it code point by code point (`bert_character_tables`): the
    two disagree on ~950 code points (U+2E55 is no punctuation there, U+1734 a mark, U+2B820 no
    CJK ideograph …), and the ids must be the model's own.

    Args:
        lowercase: lower-case the text (uncased models).
        strip_accents: NFD and delete non-spacing marks.
        special_tokens: strings kept whole where the raw text holds them.
        oov_token: what a word longer than `max_word_chars` becomes.
        max_word_chars: Hugging Face WordPiece's `max_input_chars_per_word` (100).
        normalized_special_tokens: strings kept whole where the normalised text holds them.

    Example:
    >>> splitter = BertTextSplitter(lowercase=True, strip_accents=True, special_tokens=["[SEP]"])
    >>> [[w.decode() for w in row] for row in splitter.words(tf.constant(["Café\\u00a0au LAIT![SEP]"])).to_list()]
    [['cafe', 'au', 'lait', '!', '[SEP]']]
    """

    def __init__(
        self,
        lowercase,
        strip_accents,
        special_tokens=(),
        oov_token="[UNK]",
        max_word_chars=100,
        normalized_special_tokens=(),
    ):
        self.lowercase = bool(lowercase)
        self.strip_accents = bool(strip_accents)
        self.special_tokens = longest_first(special_tokens)
        self.oov_token = oov_token
        self.max_word_chars = int(max_word_chars)
        self._special_pattern = alternatives(self.special_tokens)
        kept = [point for first, last in tables.NFD_KEPT for point in range(first, last + 1)]
        self._shield = dict(zip(kept, range(_SHIELD_BASE, _SHIELD_BASE + len(kept))))
        # After NFD: stand-ins back to their characters, then (or only) lower-casing.
        lower = dict(tables.LOWERCASE) if self.lowercase else {}
        self._after_nfd = dict(lower)
        if self.strip_accents:
            self._after_nfd.update({stand_in: lower.get(point, point) for point, stand_in in self._shield.items()})
        # Hugging Face matches a `normalized: true` added token in the normalised text, by its
        # normalised form ("<unk>" of MPNet's tokenizer.json also cuts "<UNK>" out of a text).
        self.normalized_special_tokens = longest_first(normalized_special_tokens)
        normalized_forms = []
        if self.normalized_special_tokens:
            normalized_forms = [
                token.decode("utf-8")
                for token in self.normalize(tf.constant(self.normalized_special_tokens)).numpy().tolist()
            ]
        self._normalized_special_pattern = alternatives(longest_first(normalized_forms))

    def words(self, texts):
        """The words of each text of a 1-D `tf.string` tensor: a `tf.RaggedTensor` [batch, (words)]."""
        texts = valid_utf8(tf.convert_to_tensor(texts, dtype=tf.string))
        # TF Text's regex_split ends a text at its first NUL; NUL and U+FFFD are both deleted in
        # the clean-up, and U+FFFD is in no special token, so it stands in for NUL until then.
        texts = tf.strings.regex_replace(texts, r"\x00", "\ufffd")
        return split_keeping_specials(texts, self._special_pattern, self._normalized_words)[0]

    def _normalized_words(self, texts):
        return split_keeping_specials(
            self.normalize(texts),
            self._normalized_special_pattern,
            lambda normalized: tf_text.regex_split(normalized, _SPLIT, _PUNCTUATION),
        )[0]

    def normalize(self, texts):
        """Steps 2–5 on a 1-D `tf.string` tensor of valid UTF-8."""
        texts = tf.strings.regex_replace(texts, _DELETED, "")
        texts = tf.strings.regex_replace(texts, _WHITESPACE, " ")
        texts = tf.strings.regex_replace(texts, _CJK, r" \0 ")
        if self.strip_accents:
            texts = map_code_points(texts, self._shield)
            texts = tf.strings.regex_replace(tf_text.normalize_utf8(texts, "NFD"), _NONSPACING_MARKS, "")
        if self.lowercase:
            for point, lowered in tables.LOWERCASE_EXPANSIONS.items():
                texts = tf.strings.regex_replace(texts, re.escape(chr(point)), lowered)
        if self._after_nfd:
            texts = map_code_points(texts, self._after_nfd)
        return texts

    def wordpiece_words(self, texts):
        """`words`, with each word longer than `max_word_chars` characters replaced by `oov_token`."""
        words = self.words(texts)
        too_long = tf.strings.length(words.flat_values, unit="UTF8_CHAR") > self.max_word_chars
        return words.with_flat_values(tf.where(too_long, self.oov_token, words.flat_values))
