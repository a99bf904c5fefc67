"""Training a MultiVectorEncoder (ColBERT) with `model.fit`: the model that stacks a batch's token vectors for
`MaxSimRankingLoss`, and the tf.data pipeline that packs its texts as each side is encoded."""

import keras
import numpy as np
import tensorflow as tf

from keras_sentemb.data.prompts import document_prompt, query_prompt

QUERY_KEYS = ("query_token_ids", "query_padding_mask", "query_scored")
DOCUMENT_KEYS = ("document_token_ids", "document_padding_mask", "document_scored")


class MultiVectorTraining(keras.Model):
    """`encoder` (a `MultiVectorEncoder`) on a batch of (query, document, document, …) rows packed by
    `multi_vector_dataset`: y_pred float32 [batch, k, T, dim], column 0 the query's token vectors, columns 1… its
    documents', each text's unscored positions (padding, skipped punctuation) zero rows, T the longer side's length.
    Compile it with `losses.MaxSimRankingLoss` and fit; the encoder's weights are what it trains (save the encoder).

    Example:
    (Not run as a doctest: it trains; tests/models/test_multi_vector_training.py runs the same calls.)
        training = MultiVectorTraining(encoder)
        training.compile(optimizer="adam", loss=MaxSimRankingLoss())
        training.fit(multi_vector_dataset(encoder, queries, [positives, negatives], batch_size=16), epochs=1)
    """

    def __init__(self, encoder, **kwargs):
        super().__init__(**kwargs)
        self.encoder = encoder

    def _vectors(self, token_ids, padding_mask, scored, training):
        vectors = self.encoder({"token_ids": token_ids, "padding_mask": padding_mask}, training=training)
        return tf.cast(vectors, tf.float32) * tf.cast(scored, tf.float32)[..., tf.newaxis]

    def call(self, inputs, training=False):
        queries = self._vectors(*(inputs[key] for key in QUERY_KEYS), training)  # [B, Tq, dim]
        token_ids, padding_mask, scored = (inputs[key] for key in DOCUMENT_KEYS)  # [B, k − 1, Td]
        shape = tf.shape(token_ids)
        flat = [tf.reshape(t, [-1, shape[2]]) for t in (token_ids, padding_mask, scored)]
        documents = self._vectors(*flat, training)
        documents = tf.reshape(documents, [shape[0], shape[1], shape[2], tf.shape(documents)[-1]])
        width = tf.maximum(tf.shape(queries)[1], shape[2])
        queries = tf.pad(queries, [[0, 0], [0, width - tf.shape(queries)[1]], [0, 0]])
        documents = tf.pad(documents, [[0, 0], [0, 0], [0, width - shape[2]], [0, 0]])
        return tf.concat([queries[:, tf.newaxis], documents], axis=1)


def multi_vector_dataset(encoder, queries, documents, ids=None, batch_size=16, seed=0, shuffle=True):
    """A `tf.data.Dataset` of (inputs, y) for `MultiVectorTraining`: row i is `queries[i]` and its documents
    `documents[c][i]` (column 0 the positive, further columns hard negatives), each side with its prompt (a ColBERT
    model's marker) and packed by `encoder.pack_content` as `encode_query` / `encode_document` pack it (the query's
    expansion fillers, the documents' skip-list); batches of `batch_size` (the last partial one dropped: in-batch
    negatives want full batches), shuffled with `seed` each epoch. `ids` [rows, k] (the query id, then its documents')
    is y, for `MaxSimRankingLoss(relevant_pairs=…)`; without it y is zeros."""
    documents = [list(column) for column in documents]
    if not documents or any(len(column) != len(queries) for column in documents):
        raise ValueError(f"documents must be columns of {len(queries)} texts each (a positive, then negatives)")
    if len(queries) < batch_size:
        raise ValueError(f"{len(queries)} rows make no batch of {batch_size}")
    tokenizer = encoder.tokenizer
    query_text = (query_prompt(encoder.prompts) or "") + "{}"
    document_text = (document_prompt(encoder.prompts) or "") + "{}"
    query_column = tf.constant([query_text.format(text) for text in queries])
    document_columns = tf.constant(
        [[document_text.format(column[i]) for column in documents] for i in range(len(queries))]
    )
    labels = np.zeros(len(queries), np.float32) if ids is None else np.asarray(ids, np.float32)
    if ids is not None and labels.shape != (len(queries), 1 + len(documents)):
        raise ValueError(
            f"ids must be [{len(queries)}, {1 + len(documents)}] (query id, document ids), got {labels.shape}"
        )
    data = tf.data.Dataset.from_tensor_slices((query_column, document_columns, labels))
    if shuffle:
        data = data.shuffle(len(queries), seed=seed, reshuffle_each_iteration=True)

    def pack(query_texts, document_texts, y):
        query = encoder.pack_content(tokenizer.content_ids(query_texts), "query")
        shape = tf.shape(document_texts)
        packed = encoder.pack_content(tokenizer.content_ids(tf.reshape(document_texts, [-1])), "document")
        packed = [tf.reshape(t, [shape[0], shape[1], -1]) for t in packed]
        inputs = dict(zip(QUERY_KEYS, query))
        inputs.update(zip(DOCUMENT_KEYS, packed))
        return inputs, y

    return data.batch(batch_size, drop_remainder=True).map(pack).prefetch(tf.data.AUTOTUNE)
