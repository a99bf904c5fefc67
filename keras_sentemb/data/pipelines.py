"""tf.data pipelines for training: tokenise in the pipeline, batch by length, prefetch.

Each element of a pipeline is `(features, label)` where `features` maps a column name
("sentence1"/"sentence2" for pairs, "anchor"/"positive"/"negative" for triplets,
"sentence" for single sentences) to `{"token_ids", "padding_mask"}` int32 [batch, T].

Every batch holds exactly `batch_size` examples (only the epoch's last may hold fewer):
in-batch-negative losses (`MultipleNegativesRankingLoss`, `CoSENTLoss`) get the negatives
asked for. With `bucketing=True` (default) texts of similar length are batched together
*within* windows of `LENGTH_WINDOW_BATCHES` batches of the shuffled stream: a window is
sorted by length, cut into full batches, and its batches are taken in a random order, so
each batch is padded only to its own longest text. (Bucketing *across* the whole stream,
`tf.data`'s `bucket_by_sequence_length`, left one partial batch per length bucket: on a
small set most batches were partial, 7–9 pairs where 16 were asked.) With
`bucketing=False` batches are random and padded to their maximum.
"""

import numpy as np
import tensorflow as tf

from keras_sentemb.data.epoch_order import EpochOrder, carry_epoch_order
from keras_sentemb.data.examples import LabeledPairs, LabeledSentences, ScoredPairs, TextPairs, Triplets

PAIR_KEYS = ("sentence1", "sentence2")
TRIPLET_KEYS = ("anchor", "positive", "negative")
SENTENCE_KEYS = ("sentence",)
_TOKENIZE_BLOCK = 512
LENGTH_WINDOW_BATCHES = 32


def count_batches(num_examples, batch_size, drop_remainder=False):
    """How many batches `text_pipeline` yields for `num_examples` examples: ⌈n / batch_size⌉
    (⌊·⌋ with `drop_remainder`), bucketed or not, since every batch but the last is full.

    >>> count_batches(100, 16), count_batches(100, 16, drop_remainder=True)
    (7, 6)
    """
    return int(num_examples // batch_size if drop_remainder else -(-num_examples // batch_size))


def text_pipeline(
    raw,
    tokenizer,
    batch_size=16,
    shuffle=True,
    seed=0,
    bucketing=True,
    shuffle_buffer=100_000,
    drop_remainder=False,
    num_batches=None,
):
    """Turns a dataset of `({column: scalar tf.string}, label)` into model batches.

    Args:
        raw: a `tf.data.Dataset` of `(dict of scalar strings, label)`.
        tokenizer: the encoder's tokenizer: a `SentenceTokenizer` (adds [CLS]/[SEP], truncates)
            or a `WordTokenizer` (word ids, truncates, one OOV id for an empty text).
        batch_size: examples per batch.
        shuffle: shuffle examples before batching, anew each epoch: epoch e's order depends
            on `(seed, e)` only (`EpochOrder`, carried as `dataset.epoch_order`; our models'
            `fit` follows it, so a resumed run replays the same batches).
        bucketing: batch texts of similar token length together (see module doc).
        shuffle_buffer: examples held by the shuffle buffer.
        drop_remainder: drop incomplete batches.
        num_batches: the exact batch count when known (see `count_batches`); it becomes
            the dataset's cardinality, so `fit` shows a full progress bar.
    """
    keys = list(raw.element_spec[0])
    order = EpochOrder(seed) if shuffle else None
    if order is not None:
        raw = order.shuffled(raw, shuffle_buffer)

    # One tokenizer call for all columns (its graph is the costly part of building the
    # pipeline), then the rows are split back per column. Plain Python: no autograph.
    @tf.autograph.experimental.do_not_convert
    def tokenize(features, labels):
        block = tf.shape(features[keys[0]])[0]
        ids = tokenizer.add_special_tokens(tokenizer.content_ids(tf.concat([features[key] for key in keys], axis=0)))
        packed = {}
        for index, key in enumerate(keys):
            column = ids[index * block : (index + 1) * block]
            packed[key] = (column.to_tensor(), tf.cast(column.row_lengths(), tf.int32))
        return packed, labels

    def trim(features, labels):
        trimmed = {}
        for key, (ids, length) in features.items():
            ids = ids[:length]
            trimmed[key] = {"token_ids": ids, "padding_mask": tf.ones_like(ids)}
        return trimmed, labels

    # Tokenise blocks of examples at once (vectorised TF Text), then split them again.
    tokens = raw.batch(_TOKENIZE_BLOCK).map(tokenize, num_parallel_calls=tf.data.AUTOTUNE)
    tokens = tokens.unbatch().map(trim, num_parallel_calls=tf.data.AUTOTUNE)

    def longest(features, labels):
        return tf.reduce_max([tf.shape(features[k]["token_ids"])[0] for k in keys])

    return _batch_by_length(tokens, longest, batch_size, bucketing, drop_remainder, num_batches, order)


def _trimmed(element):
    """Each `{"token_ids", …, "padding_mask"}` of a (nested) example cut back to its real tokens."""
    if isinstance(element, dict) and "padding_mask" in element:
        length = tf.reduce_sum(element["padding_mask"])
        return {key: value[:length] for key, value in element.items()}
    if isinstance(element, dict):
        return {key: _trimmed(value) for key, value in element.items()}
    if isinstance(element, (tuple, list)):
        return type(element)(_trimmed(value) for value in element)
    return element


def _sorted_in_windows(examples, length_fn, batch_size):
    """`examples` reordered window by window (windows of `LENGTH_WINDOW_BATCHES` batches): each
    window sorted by length and cut into runs of `batch_size`, the runs in an order that the
    stream's own (seeded, resumable) shuffle decides: a run goes where the first-streamed of its
    examples stood. A window's short last run (at the epoch's end) stays last, so `padded_batch`
    cuts the stream exactly into the runs."""
    window = batch_size * LENGTH_WINDOW_BATCHES

    @tf.autograph.experimental.do_not_convert
    def with_length(*example):
        return tf.cast(length_fn(*example), tf.int64), example

    @tf.autograph.experimental.do_not_convert
    def reorder(lengths, window_examples):
        size = tf.shape(lengths, out_type=tf.int64)[0]
        by_length = tf.argsort(lengths, stable=True)
        run = tf.range(size) // batch_size
        # each run's key: the smallest stream position among its examples; the short last run last
        keys = tf.math.unsorted_segment_min(tf.cast(by_length, tf.int64), run, tf.reduce_max(run) + 1)
        full = tf.math.bincount(tf.cast(run, tf.int32), dtype=tf.int64) == batch_size
        keys = tf.where(full, keys, size)
        order = tf.gather(by_length, tf.argsort(tf.gather(keys, run), stable=True))
        return tf.data.Dataset.from_tensor_slices(
            tf.nest.map_structure(lambda column: tf.gather(column, order), window_examples)
        )

    @tf.autograph.experimental.do_not_convert
    def trimmed(*example):  # the window's padding off again: each batch pads to its own longest
        return _trimmed(example)

    # A window is padded to its longest example (dense tensors: ragged slices would upset tf.data's
    # type inference), sorted, and each example cut back to its own tokens.
    windows = examples.map(with_length, num_parallel_calls=tf.data.AUTOTUNE).padded_batch(window)
    return windows.flat_map(reorder).map(trimmed, num_parallel_calls=tf.data.AUTOTUNE)


def _batch_by_length(examples, length_fn, batch_size, bucketing, drop_remainder, num_batches, order):
    """Pads tokenised examples into full batches, grouped by length within windows or at random,
    prefetched; the result carries the shuffle's `EpochOrder` (or None) as `epoch_order`."""
    if bucketing:
        examples = _sorted_in_windows(examples, length_fn, batch_size)
    batches = examples.padded_batch(batch_size, drop_remainder=drop_remainder)
    if num_batches is not None:
        batches = batches.apply(tf.data.experimental.assert_cardinality(num_batches))
    batches = batches.prefetch(tf.data.AUTOTUNE)
    batches.epoch_order = order
    return batches


def cross_pairs_dataset(
    examples,
    tokenizer,
    labels=None,
    batch_size=16,
    shuffle=True,
    seed=0,
    bucketing=True,
    shuffle_buffer=100_000,
    drop_remainder=False,
    input_names=("token_ids", "segment_ids", "padding_mask"),
):
    """A cross-encoder training pipeline: each pair becomes ONE sequence `[CLS] a [SEP] b [SEP]`.

    Elements are `({"token_ids", "segment_ids", "padding_mask"}, label)`, int32 [batch, T]
    (see `SequencePacking.pair_ids` for the packing and truncation; `tokenizer` may be the `CrossEncoder`
    itself, whose `pair_ids` packs a causal reranker's pairs through its chat template); `input_names` keeps
    the features the model reads (`CrossEncoder.input_names`: MPNet's have no segment ids). `examples` is a
    `ScoredPairs` or `LabeledPairs`; `labels` replaces its labels (for example scores
    rescaled to [0, 1]), as a float32 or int32 array [N] or [N, k].

    (Not run as a doctest: it reads files of the benchmark data folder (docs/data.md).)
        train = cross_pairs_dataset(read_scored_pairs(path), cross_encoder.tokenizer)
    """
    if not isinstance(examples, (ScoredPairs, LabeledPairs)):
        raise TypeError(f"examples must be ScoredPairs or LabeledPairs, got {type(examples).__name__}")
    if len(examples) == 0:
        raise ValueError("cannot build a training pipeline from zero examples")
    if labels is None:
        labels = np.asarray(
            examples.scores if isinstance(examples, ScoredPairs) else examples.labels,
            dtype=np.float32 if isinstance(examples, ScoredPairs) else np.int32,
        )
    labels = np.asarray(labels)
    if labels.shape[0] != len(examples):
        raise ValueError(f"{labels.shape[0]} labels for {len(examples)} pairs")
    first = tf.constant(examples.sentences1, dtype=tf.string)
    second = tf.constant(examples.sentences2, dtype=tf.string)
    num_batches = count_batches(len(examples), batch_size, drop_remainder=drop_remainder)
    raw = tf.data.Dataset.from_tensor_slices(((first, second), labels))
    order = EpochOrder(seed) if shuffle else None
    if order is not None:
        raw = order.shuffled(raw, shuffle_buffer)

    def tokenize(texts, labels):
        ids, segments = tokenizer.pair_ids(texts[0], texts[1])
        return (ids, segments), labels

    def to_features(packed, labels):
        ids, segments = packed
        features = {"token_ids": ids, "segment_ids": segments, "padding_mask": tf.ones_like(ids)}
        return {name: features[name] for name in input_names}, labels

    tokens = raw.batch(_TOKENIZE_BLOCK).map(tokenize, num_parallel_calls=tf.data.AUTOTUNE)
    tokens = tokens.unbatch().map(to_features, num_parallel_calls=tf.data.AUTOTUNE)
    return _batch_by_length(
        tokens,
        lambda features, labels: tf.shape(features["token_ids"])[0],
        batch_size,
        bucketing,
        drop_remainder,
        num_batches,
        order,
    )


def _columns_and_labels(examples):
    """`({column: texts}, labels, label dtype)` of a typed examples object."""
    if isinstance(examples, ScoredPairs):
        return dict(zip(PAIR_KEYS, (examples.sentences1, examples.sentences2))), examples.scores, tf.float32
    if isinstance(examples, LabeledPairs):
        return dict(zip(PAIR_KEYS, (examples.sentences1, examples.sentences2))), examples.labels, tf.int32
    if isinstance(examples, TextPairs):
        return dict(zip(PAIR_KEYS, (examples.sentences1, examples.sentences2))), [0.0] * len(examples), tf.float32
    if isinstance(examples, Triplets):
        columns = dict(zip(TRIPLET_KEYS, (examples.anchors, examples.positives, examples.negatives)))
        return columns, [0.0] * len(examples), tf.float32
    if isinstance(examples, LabeledSentences):
        return {"sentence": examples.sentences}, examples.labels, tf.int32
    raise TypeError(
        "examples must be TextPairs, ScoredPairs, LabeledPairs, Triplets or LabeledSentences, "
        f"got {type(examples).__name__}"
    )


def examples_dataset(examples, tokenizer, labels=None, **kwargs):
    """A training pipeline for `TextPairs`, `ScoredPairs`, `LabeledPairs`, `Triplets` or
    `LabeledSentences`.

    Labels: float32 scores, int32 classes, or float32 zeros for text pairs and triplets (their
    losses use none). The texts are tokenised once up front to count the batches, so
    the dataset has a known cardinality (`len(dataset)`, full progress bars, exact
    schedule lengths). `labels` replaces the examples' own labels (an array [N] or [N, k],
    e.g. `[label, teacher logits…]` rows for distillation). Keyword arguments go to
    `text_pipeline`.

    (Not run as a doctest: it reads files of the benchmark data folder (docs/data.md).)
        train = examples_dataset(read_scored_pairs(path), encoder.tokenizer)
        sbert.fit(train, epochs=4)
    """
    columns, own_labels, label_dtype = _columns_and_labels(examples)
    if len(own_labels) == 0:
        raise ValueError("cannot build a training pipeline from zero examples")
    if labels is None:
        labels = tf.constant(own_labels, dtype=label_dtype)
    elif np.shape(labels)[0] != len(own_labels):
        raise ValueError(f"{np.shape(labels)[0]} labels for {len(own_labels)} examples")
    raw = tf.data.Dataset.from_tensor_slices(
        (
            {key: tf.constant(texts, dtype=tf.string) for key, texts in columns.items()},
            labels,
        )
    )
    num_batches = count_batches(
        len(own_labels), kwargs.get("batch_size", 16), drop_remainder=kwargs.get("drop_remainder", False)
    )
    return text_pipeline(raw, tokenizer, num_batches=num_batches, **kwargs)


def sentence_targets_dataset(sentences, targets, tokenizer, **kwargs):
    """A distillation pipeline: `({"token_ids", "padding_mask"}, target row)` batches of
    single sentences and a float32 target per sentence (a teacher's vector [N, d] for
    `SRALoss`), for encoders that `fit` directly (`BiLSTMSRA`, `InferLite`).

    Keyword arguments go to `text_pipeline` (batch_size, shuffle, seed, bucketing…).

    (Not run as a doctest: it needs a trained model or data from the surrounding text.)
        train = sentence_targets_dataset(sentences, teacher_vectors, model.tokenizer)
        model.fit(train, epochs=3)
    """
    targets = np.asarray(targets, dtype=np.float32)
    if targets.ndim == 0 or targets.shape[0] != len(sentences):
        raise ValueError(f"{targets.shape[0] if targets.ndim else 0} targets for {len(sentences)} sentences")
    examples = LabeledSentences(sentences=list(sentences), labels=[0] * len(sentences))
    dataset = examples_dataset(examples, tokenizer, labels=targets, **kwargs)
    cardinality = dataset.cardinality()
    single = dataset.map(lambda features, target: (features["sentence"], target))
    return carry_epoch_order(dataset, single.apply(tf.data.experimental.assert_cardinality(cardinality)))
