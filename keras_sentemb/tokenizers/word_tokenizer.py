"""WordTokenizer: raw strings to word ids, in-graph (tf.strings + TF Text + StringLookup)."""

import collections
import functools

import keras
import tensorflow as tf
import tensorflow_text as tf_text

from keras_sentemb.tokenizers import bert_character_tables as tables
from keras_sentemb.tokenizers.bert_text_splitter import character_class
from keras_sentemb.tokenizers.ragged_rows import content_rows_in_chunks
from keras_sentemb.tokenizers.utf8_text import valid_utf8

# A token is a contraction tail ("n't", "'s", "'re", "'ve", "'ll", "'d", "'m", as GloVe's
# Stanford tokenizer splits them), one punctuation or symbol character, or a run of
# anything else up to whitespace, punctuation or a symbol.
_SPLIT_PATTERN = r" +|n't\b|'(?:s|re|ve|ll|d|m)\b|[\p{P}\p{S}]"
_KEEP_PATTERN = r"n't\b|'(?:s|re|ve|ll|d|m)\b|[\p{P}\p{S}]"
# Before splitting, text is made what the encoders were trained on: every Unicode space (NBSP,
# U+2000–U+200A, U+3000, line and paragraph separators …) and the control characters that
# separate (vertical tab, form feed: page breaks of PDF text; U+001C–U+001F, NEL) an ASCII
# space, then the other control and format characters (zero-width space, BOM, bidi marks, NUL)
# deleted: the BERT clean-up's tables, except that BERT deletes those separating controls.
SPACE_RUNS = (*tables.WHITESPACE, (0xB, 0xC), (0x1C, 0x1F), (0x85, 0x85))
_SPACES = character_class(SPACE_RUNS)
_DELETED = character_class(tables.DELETED)


@functools.cache
def _plain_text_table():
    table = {point: None for first, last in tables.DELETED for point in range(first, last + 1)}
    table.update({point: " " for first, last in SPACE_RUNS for point in range(first, last + 1)})
    return table


def plain_text(text):
    """`text` as the word encoders were trained on it, in Python: every space of `SPACE_RUNS` an
    ASCII space, the other deleted characters gone. `WordTokenizer` splits any text as this.

    >>> plain_text("The\u00a0cat\u200b sat")
    'The cat sat'
    """
    return text.translate(_plain_text_table())


PADDING_ID = 0
OOV_ID = 1


@keras.saving.register_keras_serializable(package="keras_sentemb")
class WordTokenizer(keras.layers.Layer):
    """Splits texts into words and maps them to ids of a fixed vocabulary.

    `words(texts)`: invalid UTF-8 is replaced (U+FFFD, then deleted); every Unicode space (and form feed,
    vertical tab) becomes a space and other control and format characters are deleted (as in BERT's clean-up: "a\u00a0b" splits like
    "a b", "a\u200bb" reads "ab"); the text is lower-cased (Unicode `lower`) when
    `lowercase=True`, and split into tokens: the English contraction tails
    "n't", "'s", "'re", "'ve", "'ll", "'d", "'m" (so "don't" → "do", "n't", as GloVe's
    tokenizer did), every punctuation or symbol character alone, and the runs between
    them and whitespace. `content_ids(texts)` looks the words up (`StringLookup`): id 0 is
    padding, id 1 an out-of-vocabulary word, vocabulary word i gets id i + 2; rows are cut
    to `max_length` words (the tail of a long text is dropped).

    `pack(content_ids)` pads to the longest row: `{"token_ids", "padding_mask"}` int32
    [batch, T]. An empty text (no words) packs as ONE out-of-vocabulary word, so every
    text has at least one token and a defined embedding; an all-OOV text is a row of
    OOV ids. All of it runs in `tf.function`, `tf.data` and exported SavedModels.

    Args:
        vocabulary: the words (list of str), most useful first; ids follow this order.
        lowercase: lower-case before the lookup (GloVe 6B is uncased).
        max_length: the most words kept of one text (≥ 1).

    Example:
    >>> tokenizer = WordTokenizer(["the", "fox", "do", "n't"], max_length=8)
    >>> tokenizer.pack(tokenizer.content_ids(tf.constant(["The fox don't!", ""])))[
    ...     "token_ids"].numpy().tolist()
    [[2, 3, 4, 5, 1], [1, 0, 0, 0, 0]]
    """

    def __init__(self, vocabulary, lowercase=True, max_length=128, **kwargs):
        kwargs.setdefault("trainable", False)
        kwargs.setdefault("dtype", "int32")
        super().__init__(**kwargs)
        vocabulary = [str(word) for word in vocabulary]
        if not vocabulary:
            raise ValueError("WordTokenizer: the vocabulary is empty")
        if "" in vocabulary:
            raise ValueError(f"WordTokenizer: the vocabulary holds an empty word (row {vocabulary.index('')})")
        repeated = [word for word, count in collections.Counter(vocabulary).items() if count > 1]
        if repeated:
            raise ValueError(f"WordTokenizer: the vocabulary repeats the word {repeated[0]!r}")
        if not isinstance(max_length, int) or isinstance(max_length, bool) or max_length < 1:
            raise ValueError(f"WordTokenizer: max_length must be an int >= 1, got {max_length!r}")
        self.vocabulary = vocabulary
        self.lowercase = bool(lowercase)
        self.max_length = max_length
        self.pad_token_id = PADDING_ID
        self.oov_token_id = OOV_ID
        self._lookup = keras.layers.StringLookup(
            vocabulary=vocabulary,
            num_oov_indices=1,
            mask_token="",
            output_mode="int",
            name="word_lookup",
        )

    @property
    def vocabulary_size(self):
        """Rows of an embedding table for these ids: vocabulary + padding + OOV."""
        return len(self.vocabulary) + 2

    def words(self, texts):
        """The tokens of each text of a 1-D string tensor: a `tf.RaggedTensor` of strings."""
        texts = tf.strings.regex_replace(valid_utf8(texts), _SPACES, " ")
        texts = tf.strings.regex_replace(texts, _DELETED, "")
        if self.lowercase:
            texts = tf.strings.lower(texts, encoding="utf-8")
        return tf_text.regex_split(texts, delim_regex_pattern=_SPLIT_PATTERN, keep_delim_regex_pattern=_KEEP_PATTERN)

    @tf.autograph.experimental.do_not_convert  # no tensor-dependent control flow: skip AutoGraph's cost
    def content_ids(self, texts):
        """Word ids of each text: a `tf.RaggedTensor` int32 [batch, (≤ max_length)]."""
        texts = tf.convert_to_tensor(texts, dtype=tf.string)
        if texts.shape.rank != 1:
            raise ValueError(f"content_ids expects a 1-D string tensor, got shape {texts.shape}")
        words = self.words(texts)[:, : self.max_length]
        ids = tf.ragged.map_flat_values(self._lookup, words)
        return tf.cast(ids, tf.int32)

    def add_special_tokens(self, content_ids):
        """Each row as the encoder reads it: its ids, or one OOV id for an empty row."""
        padded = content_ids.to_tensor(default_value=OOV_ID)
        padded = tf.concat([padded, tf.fill([tf.shape(padded)[0], 1], OOV_ID)], axis=1)
        lengths = tf.maximum(content_ids.row_lengths(), 1)
        return tf.RaggedTensor.from_tensor(tf.cast(padded, content_ids.dtype), lengths=lengths)

    def pack(self, content_ids):
        """`{"token_ids", "padding_mask"}` int32 [batch, T], T = the longest row (≥ 1)."""
        rows = self.add_special_tokens(content_ids)
        token_ids = rows.to_tensor(default_value=PADDING_ID)
        padding_mask = tf.sequence_mask(rows.row_lengths(), maxlen=tf.shape(token_ids)[1], dtype=tf.int32)
        return {"token_ids": tf.cast(token_ids, tf.int32), "padding_mask": padding_mask}

    def content_id_rows(self, texts, chunk_size=8192):
        """`content_ids` for a Python list of texts (str or UTF-8 bytes): NumPy int32 rows."""
        return content_rows_in_chunks(self.content_ids, texts, chunk_size)

    def call(self, texts):
        return self.pack(self.content_ids(texts))

    def get_config(self):
        config = super().get_config()
        config.update(vocabulary=list(self.vocabulary), lowercase=self.lowercase, max_length=self.max_length)
        return config
