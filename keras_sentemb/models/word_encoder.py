"""WordEncoder: what the word-level sentence encoders (InferLite, BiLSTM-SRA) share: raw
strings in, vectors out (`encode` with smart batching, `embed_fn`, config)."""

from __future__ import annotations

import keras
import numpy as np

from keras_sentemb.layers.word_embeddings import WordEmbeddings
from keras_sentemb.models.embedding_model import EmbeddingModel
from keras_sentemb.pretrained.word_vectors import WordVectors
from keras_sentemb.tokenizers.word_tokenizer import OOV_ID, PADDING_ID, WordTokenizer
from keras_sentemb.utils.nested_config import deserialize_nested, serialize_nested
from keras_sentemb.utils.types import Texts


def pack_word_rows(rows, length):
    """Dense `token_ids` and `padding_mask` [len(rows), length] for word-id rows; an empty
    row becomes one OOV id (as `WordTokenizer.pack` does). Rows must fit in `length`.

    >>> ids, mask = pack_word_rows([np.array([5, 6]), np.array([], np.int32)], 3)
    >>> ids.tolist(), mask.tolist()
    ([[5, 6, 0], [1, 0, 0]], [[1, 1, 0], [1, 0, 0]])
    """
    token_ids = np.full((len(rows), length), PADDING_ID, dtype=np.int32)
    padding_mask = np.zeros((len(rows), length), dtype=np.int32)
    for i, row in enumerate(rows):
        if len(row) == 0:
            row = (OOV_ID,)
        token_ids[i, : len(row)] = row
        padding_mask[i, : len(row)] = 1
    return token_ids, padding_mask


def word_inputs():
    """The functional inputs of a word encoder: int32 `token_ids` and `padding_mask` [batch, T]."""
    return (
        keras.Input(shape=(None,), dtype="int32", name="token_ids"),
        keras.Input(shape=(None,), dtype="int32", name="padding_mask"),
    )


def checked_word_embeddings(tokenizer, table_shapes, tables=None):
    """`WordEmbeddings` for `table_shapes`, refused unless they have one row per id of
    `tokenizer` (vocabulary + padding + OOV)."""
    embeddings = WordEmbeddings(table_shapes, tables=tables, name="word_embeddings")
    if embeddings.vocabulary_size != tokenizer.vocabulary_size:
        raise ValueError(
            f"tables have {embeddings.vocabulary_size} rows but the tokenizer gives {tokenizer.vocabulary_size} ids"
        )
    return embeddings


class WordEncoder(EmbeddingModel):
    """Base (before `keras.Model`, see `EmbeddingModel`) of the models mapping `{"token_ids", "padding_mask"}` of a
    `WordTokenizer` to one vector per text. The model's `__init__` takes `(tokenizer,
    table_shapes, tables=None, **architecture)` and sets `self.tokenizer`,
    `self.word_embeddings` (from `checked_word_embeddings`) and `self.table_shapes`; its
    `get_config` starts from `word_config()`."""

    @classmethod
    def from_word_vectors(cls, word_vectors: WordVectors, max_length: int | None = 128, **kwargs):
        """A fresh model over a `WordVectors` (vocabulary + tables); `kwargs` go to __init__."""
        tokenizer = WordTokenizer(word_vectors.vocabulary, max_length=max_length)
        shapes = {name: table.shape for name, table in word_vectors.tables.items()}
        return cls(tokenizer, shapes, tables=word_vectors.tables, **kwargs)

    def keep_word_parts(self, tokenizer, embeddings):
        """Records the tokenizer and `WordEmbeddings` every word encoder holds (after
        `keras.Model.__init__`)."""
        self.tokenizer = tokenizer
        self.word_embeddings = embeddings
        self.table_shapes = dict(embeddings.table_shapes)

    def word_config(self):
        """The config entries every word encoder has (its architecture adds the rest)."""
        return {
            **super().get_config(),
            "tokenizer": serialize_nested(self.tokenizer),
            "table_shapes": {k: list(v) for k, v in self.table_shapes.items()},
        }

    @classmethod
    def from_config(cls, config):
        return cls(**deserialize_nested(config, ("tokenizer",)))

    tokenizer_hint = "WordTokenizer(...)"

    def packed_length(self, row):
        """The row, or one OOV id for an empty row."""
        return max(len(row), 1)

    def pack_batch(self, rows, length):
        return pack_word_rows(rows, length)

    def encode(
        self,
        texts: Texts,
        batch_size: int = 256,
        normalize: bool = True,
        progress: bool | None = None,
        *,
        truncate_dim: int | None = None,
    ) -> np.ndarray:
        """Embeds raw texts; returns float32 NumPy [N, d] in input order.

        Texts are tokenised in-graph, sorted by word count and batched (`batch_size`
        texts, padded to the smallest bucket that holds the longest), then put back in
        input order. A text longer than the tokenizer's `max_length` words is cut to its
        first `max_length` words; an empty text (no words) is read as one unknown word, so
        all empty texts share one vector; a text of unknown words only is a sequence of
        unknown-word ids (its vector depends on its length only when the encoder looks at
        context). A single `str` returns one vector [d]. `truncate_dim` keeps the first this many
        features before normalising (Matryoshka truncation).

        Raises:
            TypeError / ValueError: a non-text element or invalid UTF-8 bytes (its index).
        """
        return self.encode_texts(texts, batch_size, normalize, progress, truncate_dim=truncate_dim)
