"""QwenTextSplitter: raw strings to the pre-tokens of Qwen2 / Qwen3's byte-level BPE, in TF ops, exactly as
their `tokenizer.json` splits them: normaliser `NFC`, pre-tokeniser `Sequence[Split(QWEN_EXPRESSION,
"isolated"), ByteLevel(use_regex=false)]`, where

    QWEN_EXPRESSION = (?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*
                      |\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+

RE2 has no look-ahead, so `\\s+(?!\\S)` is reproduced by cutting the text into runs of white space and runs
of anything else and deciding each white-space run's pieces from its own characters and its neighbours:
- a run that a piece of "other" characters ends right before gives that piece its leading `[\\r\\n]+`
  (` ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*` takes them);
- what is left of it up to its last line break is one piece (`\\s*[\\r\\n]+`);
- after that, before a non-space run, all but its last character are one piece (`\\s+(?!\\S)`) and the
  last character (never a line break there) goes to the front of the next run, which the expression
  without its look-ahead then splits as the whole text would (`[^\\r\\n\\p{L}\\p{N}]?\\p{L}+`,
  ` ?[^\\s…]+` or `\\s+` take it); at the end of the text, the rest is one piece.
On the 12,000 hostile texts these pieces are Hugging Face's, every one (tests/tokenizers/test_qwen_text_splitter.py).
Which character is a letter, number or white space follows Hugging Face's Oniguruma tables
(`byte_level_character_tables`), as for GPT-2's expression.

Example:
>>> splitter = QwenTextSplitter(special_tokens=["<|endoftext|>"])
>>> words, special = splitter.words(tf.constant(["It's  12 cats!\\n\\n ok<|endoftext|>"]))
>>> [w.decode() for w in words.to_list()[0]]
['It', "'s", ' ', ' ', '1', '2', ' cats', '!\\n\\n', ' ok', '<|endoftext|>']
"""

import tensorflow as tf

from keras_sentemb.tokenizers import byte_level_character_tables as tables
from keras_sentemb.tokenizers.bert_text_splitter import character_class
from keras_sentemb.tokenizers.byte_level_text_splitter import ByteLevelTextSplitter, complement_runs
from keras_sentemb.tokenizers.utf8_text import regex_pieces

QWEN_EXPRESSION = r"""(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+"""


_LINE_BREAKS = ((0x0A, 0x0A), (0x0D, 0x0D))
_LETTER = character_class(tables.LETTERS)
_NUMBER = character_class(tables.NUMBERS)
_SPACE = character_class(tables.SPACES)
_OTHER = character_class(complement_runs(tables.LETTERS, tables.NUMBERS, tables.SPACES))
_NOT_LINE_LETTER_NUMBER = character_class(complement_runs(_LINE_BREAKS, tables.LETTERS, tables.NUMBERS))
# The expression without `\s+(?!\S)`, for a run of non-space characters with at most one white-space
# character in front (and no line break after it: those are given to its last piece separately).
_RUN_PIECE = f"(?i:'s|'t|'re|'ve|'m|'ll|'d)|{_NOT_LINE_LETTER_NUMBER}?{_LETTER}+|{_NUMBER}| ?{_OTHER}+|{_SPACE}+"


def _last_of_rows(ragged, fill=""):
    """The last value of each row of a 2-D ragged tensor (`fill` for an empty row)."""
    values = tf.concat([ragged.flat_values, [fill]], axis=0)
    has = ragged.row_lengths() > 0
    where = tf.where(has, ragged.row_limits() - 1, tf.size(ragged.flat_values, out_type=tf.int64))
    return tf.gather(values, where), has


def qwen_pre_tokens(texts):
    """Qwen's expression on each text of a 1-D string tensor (valid UTF-8): ragged [texts, (pieces)]."""
    runs = regex_pieces(texts, f"{_SPACE}+")
    flat = runs.flat_values
    rows = runs.value_rowids()
    index = tf.range(tf.size(flat, out_type=tf.int64))
    first = index == tf.gather(runs.row_splits, rows)
    last = index == tf.gather(runs.row_splits[1:], rows) - 1
    is_space = tf.strings.regex_full_match(flat, f"{_SPACE}+")
    length = tf.strings.length(flat, unit="UTF8_CHAR")
    final_character = tf.strings.substr(flat, tf.maximum(length - 1, 0), tf.ones_like(length), unit="UTF8_CHAR")
    # A white-space run before a non-space run lends it its last character (unless a line break).
    lends = is_space & ~last & ~tf.strings.regex_full_match(final_character, "[\r\n]")
    body = tf.where(lends, tf.strings.substr(flat, tf.zeros_like(length), length - 1, unit="UTF8_CHAR"), flat)
    lent = tf.where(lends, final_character, "")
    received = tf.where(first, "", tf.concat([[""], lent[:-1]], axis=0))
    pieces = regex_pieces(tf.where(is_space, "", tf.strings.join([received, flat])), _RUN_PIECE)
    # A run whose last piece is a run of "other" characters takes the line breaks that follow it.
    last_piece, has_pieces = _last_of_rows(pieces)
    takes_breaks = has_pieces & tf.strings.regex_full_match(last_piece, f" ?{_OTHER}+")
    given = is_space & ~first & tf.concat([[False], takes_breaks[:-1]], axis=0)
    breaks = tf.where(given, tf.strings.regex_replace(body, "^([\r\n]*)(?s:.*)$", r"\1"), "")
    body = tf.strings.substr(body, tf.strings.length(breaks), tf.strings.length(body) - tf.strings.length(breaks))
    next_breaks = tf.concat([breaks[1:], [""]], axis=0)
    at = tf.boolean_mask(pieces.row_limits() - 1, has_pieces)
    pieces = pieces.with_flat_values(
        tf.tensor_scatter_nd_update(
            pieces.flat_values,
            at[:, None],
            tf.strings.join([tf.boolean_mask(last_piece, has_pieces), tf.boolean_mask(next_breaks, has_pieces)]),
        )
    )
    # The rest of a white-space run: up to its last line break, then what follows.
    through_break = tf.strings.regex_replace(body, r"^((?s:.*)[\r\n])?((?s:.*))$", r"\1")
    after_break = tf.strings.regex_replace(body, r"^((?s:.*)[\r\n])?((?s:.*))$", r"\2")
    space_pieces = tf.stack([through_break, after_break], axis=1)
    space_pieces = tf.ragged.boolean_mask(space_pieces, is_space[:, None] & (space_pieces != ""))
    return runs.with_flat_values(tf.concat([space_pieces, pieces], axis=1)).merge_dims(1, 2)


class QwenTextSplitter(ByteLevelTextSplitter):
    """Splits texts into the pre-tokens of Qwen2 / Qwen3's reference tokenizer, in-graph: added tokens
    cut out first (kept whole; `lstrip`/`rstrip` ones take the white space beside them), then each
    stretch between them NFC-normalised (with `nfc`) and split by `qwen_pre_tokens`. The byte-level
    BPE then sees each pre-token's UTF-8 bytes. Everything but the expression is `ByteLevelTextSplitter`'s.

    Args:
        special_tokens: the added tokens, kept whole where the raw text holds them.
        lstrip_tokens, rstrip_tokens: those of them that take the white space on their left, right.
        nfc: the tokenizer.json's normaliser is `NFC`.
    """

    def __init__(self, special_tokens=(), lstrip_tokens=(), rstrip_tokens=(), nfc=True):
        super().__init__(special_tokens, lstrip_tokens, rstrip_tokens, add_prefix_space=False, nfc=nfc)

    def _pre_tokens(self, texts):
        if self.nfc:
            texts = self._nfc(texts)
        return qwen_pre_tokens(texts)
