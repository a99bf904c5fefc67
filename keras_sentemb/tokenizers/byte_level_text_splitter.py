"""ByteLevelTextSplitter: raw strings to the pre-tokens of GPT-2 / RoBERTa's byte-level BPE, in TF
ops, exactly as a model's `tokenizer.json` (Hugging Face `ByteLevel` pre-tokeniser) splits them."""

import tensorflow as tf

from keras_sentemb.tokenizers import byte_level_character_tables as tables
from keras_sentemb.tokenizers.added_tokens import alternatives, longest_first, split_keeping_specials
from keras_sentemb.tokenizers.bert_text_splitter import character_class
from keras_sentemb.tokenizers.unicode_normalization import HuggingFaceNormalization
from keras_sentemb.tokenizers.utf8_text import regex_pieces, valid_utf8

_LETTER = character_class(tables.LETTERS)
_NUMBER = character_class(tables.NUMBERS)
_SPACE = character_class(tables.SPACES)
_STRIPPED_SPACE = character_class(tables.STRIPPED_SPACES)


def complement_runs(*classes):
    """The code-point runs outside every run of `classes` (surrogates excluded)."""
    taken = sorted([run for runs in classes for run in runs] + [(0xD800, 0xDFFF)])
    runs, start = [], 0
    for first, last in taken:
        if first > start:
            runs.append((start, first - 1))
        start = max(start, last + 1)
    if start <= 0x10FFFF:
        runs.append((start, 0x10FFFF))
    return runs


_OTHER = character_class(complement_runs(tables.LETTERS, tables.NUMBERS, tables.SPACES))
# GPT-2's expression without its `\s+(?!\S)` alternative (RE2 has no look-ahead): `words` cuts the text
# into chunks on which this one splits as the full expression splits the whole text.
_PRE_TOKEN = f"'s|'t|'re|'ve|'m|'ll|'d| ?{_LETTER}+| ?{_NUMBER}+| ?{_OTHER}+|{_SPACE}+"


def _chunks(texts):
    """Each text cut into runs of white space and runs of anything else, the last white-space
    character before a non-space run moved onto that run.

    GPT-2's `\\s+(?!\\S)|\\s+` leaves the last white-space character of a run for what follows it
    (" ?\\p{L}+" takes it when it is a space, `\\s+` alone otherwise); no pre-token ever spans a
    non-space character and the white space after it. So each chunk splits on its own as the whole
    text splits, and `_PRE_TOKEN` needs no look-ahead within a chunk.
    """
    runs = regex_pieces(texts, f"{_SPACE}+")
    flat = runs.flat_values
    is_space = tf.strings.regex_full_match(flat, f"{_SPACE}+")
    # Runs alternate; a white-space run that is not the last of its text precedes a non-space run.
    last = tf.scatter_nd(
        tf.expand_dims(runs.row_limits()[runs.row_lengths() > 0] - 1, 1),
        tf.ones([tf.reduce_sum(tf.cast(runs.row_lengths() > 0, tf.int32))], tf.bool),
        tf.shape(flat, out_type=tf.int64),
    )
    gives = is_space & ~last
    length = tf.strings.length(flat, unit="UTF8_CHAR")
    cut = tf.maximum(length - 1, 0)
    head = tf.strings.substr(flat, tf.zeros_like(cut), cut, unit="UTF8_CHAR")
    tail = tf.strings.substr(flat, cut, tf.ones_like(cut), unit="UTF8_CHAR")
    kept = tf.where(gives, head, flat)
    received = tf.concat([[False], gives[:-1]], axis=0)[: tf.size(flat)]
    given = tf.concat([[""], tail[:-1]], axis=0)[: tf.size(flat)]
    chunks = tf.where(received, tf.strings.join([given, kept]), kept)
    chunks = runs.with_flat_values(chunks)
    return tf.ragged.boolean_mask(chunks, chunks != "")


class ByteLevelTextSplitter(tf.Module):
    """Splits texts into the pre-tokens of a byte-level BPE model's reference tokenizer, in-graph.

    The steps are Hugging Face's (a model's `tokenizer.json`):
    1. added tokens written in the raw text ("<s>", "<mask>" …, exact case) are cut out first and
       kept whole; one with `lstrip` (`rstrip`) takes the white space on its left (right) with it;
    2. with `add_prefix_space`, each stretch of text between them that does not start with a space
       gets one;
    3. GPT-2's expression splits the rest into contractions ('s 't 're 've 'm 'll 'd), letters,
       numbers and other characters, each run with the one space before it, and runs of white space.

    Which character is which is not RE2's Unicode tables but those of the Hugging Face library, read
    from it code point by code point (`byte_level_character_tables`). The byte-level model then sees
    each pre-token's UTF-8 bytes.

    Args:
        special_tokens: the added tokens, kept whole where the raw text holds them.
        lstrip_tokens, rstrip_tokens: those of them that take the white space on their left, right.
        add_prefix_space: the `ByteLevel` pre-tokeniser's setting.
        nfc: an `NFC` normaliser runs on each stretch between added tokens first (GPT-NeoX's and
            ModernBERT's tokenizer.json).

    Example:
    >>> splitter = ByteLevelTextSplitter(special_tokens=["<s>", "<mask>"], lstrip_tokens=["<mask>"])
    >>> words, special = splitter.words(tf.constant(["It's  2 cats!\\t <mask>"]))
    >>> [w.decode() for w in words.to_list()[0]], special.to_list()[0]
    (['It', "'s", ' ', ' 2', ' cats', '!', '\\t <mask>'], [False, False, False, False, False, False, True])
    """

    def __init__(self, special_tokens=(), lstrip_tokens=(), rstrip_tokens=(), add_prefix_space=False, nfc=False):
        # A tf.Module, so that the lookup table of its NFC step goes into SavedModels.
        super().__init__(name="byte_level_text_splitter")
        self.nfc = bool(nfc)
        self._nfc = HuggingFaceNormalization("NFC") if self.nfc else None
        self.special_tokens = longest_first(special_tokens)
        self.lstrip_tokens = tuple(lstrip_tokens)
        self.rstrip_tokens = tuple(rstrip_tokens)
        self.add_prefix_space = bool(add_prefix_space)
        self._special_pattern = alternatives(self.special_tokens, lstrip_tokens, rstrip_tokens, _STRIPPED_SPACE)

    def words(self, texts):
        """`(words, is_special)` of each text of a 1-D `tf.string` tensor: two `tf.RaggedTensor`s
        [batch, (words)], the pre-tokens (UTF-8) and whether each is an added token."""
        texts = valid_utf8(tf.convert_to_tensor(texts, dtype=tf.string))
        # Cut with `regex_pieces`: TF Text's regex_split ends a text at its first NUL.
        return split_keeping_specials(texts, self._special_pattern, self._pre_tokens, regex_pieces)

    def _pre_tokens(self, texts):
        if self.nfc:
            texts = self._nfc(texts)
        if self.add_prefix_space:
            # Hugging Face prefixes every stretch that does not start with a space (an empty one too).
            texts = tf.where(tf.strings.substr(texts, 0, 1) == " ", texts, tf.strings.join([" ", texts]))
        chunks = _chunks(texts)
        pieces = regex_pieces(chunks.flat_values, _PRE_TOKEN)
        return chunks.with_flat_values(pieces).merge_dims(1, 2)

    @staticmethod
    def special_token(word):
        """An added token's own text, from the word that holds it (its stripped white space removed)."""
        return tf.strings.regex_replace(word, f"^{_STRIPPED_SPACE}+|{_STRIPPED_SPACE}+$", "")
