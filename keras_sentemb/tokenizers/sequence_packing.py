"""SequencePacking: what every sentence tokenizer of the project does with its content ids — truncate,
add the model's start and end tokens, pad, pack a pair of texts — in-graph, whatever turns text into ids."""

import tensorflow as tf

from keras_sentemb.tokenizers.ragged_rows import numpy_rows
from keras_sentemb.tokenizers.special_token_counts import SpecialTokenCounts
from keras_sentemb.utils.graph_function import graph_function


def checked_pair_separators(count, owner):
    """`count` when it is 1 or 2 (the end tokens between a pair's texts); else a ValueError naming `owner`."""
    if count not in (1, 2) or isinstance(count, bool):
        raise ValueError(f"{owner}: pair_separators must be 1 or 2, got {count!r}.")
    return count


def longest_first_lengths(length_a, length_b, budget):
    """How many ids each text of a pair keeps when the two may hold `budget` ids together: Hugging Face
    `tokenizers`' "longest_first" truncation (what sentence-transformers' `CrossEncoder` and every
    Hugging Face pair tokenizer use). With s = the shorter length, l = the longer:

        both fit (s + l ≤ budget)  → both whole
        else the shorter keeps s and the longer budget − s, when s ≤ budget − s;
        else each keeps budget // 2, the longer one the odd id (b on a tie)

    Vectors of lengths in, vectors out (int tensors).

    >>> [t.numpy().tolist() for t in longest_first_lengths(tf.constant([3, 10, 9, 7]), tf.constant([2, 4, 9, 8]), 9)]
    [[3, 5, 4, 4], [2, 4, 5, 5]]
    """
    swap = length_a > length_b
    shorter, longer = tf.minimum(length_a, length_b), tf.maximum(length_a, length_b)
    longer = tf.where(shorter > budget, shorter, tf.maximum(shorter, budget - shorter))
    halves = shorter + longer > budget
    shorter = tf.where(halves, tf.ones_like(shorter) * (budget // 2), shorter)
    longer = tf.where(halves, tf.ones_like(longer) * (budget // 2 + budget % 2), longer)
    fits = length_a + length_b <= budget
    keep_a = tf.where(fits, length_a, tf.where(swap, longer, shorter))
    keep_b = tf.where(fits, length_b, tf.where(swap, shorter, longer))
    return keep_a, keep_b


def leading_ids(ragged, counts):
    """The first `counts[i]` ids of each row of a 2-D `tf.RaggedTensor`."""
    positions = tf.ragged.range(ragged.row_lengths(), dtype=ragged.row_splits.dtype)
    return tf.ragged.boolean_mask(ragged, positions < tf.expand_dims(tf.cast(counts, positions.dtype), 1))


def fixed_ids(ids, rows, dtype):
    """`ids` (a tuple) repeated on `rows` rows, as a ragged tensor (empty rows for no ids)."""
    fixed = tf.tile(tf.constant([list(ids)], dtype) if ids else tf.zeros([1, 0], dtype), tf.stack([rows, 1]))
    return tf.RaggedTensor.from_tensor(fixed)


class SequencePacking(SpecialTokenCounts):
    """A mixin for a keras-hub tokenizer with `cls_token_id`, `sep_token_id`, `pad_token_id`,
    `max_length` and `_content_ids_graph(texts)` (1-D strings → ragged ids, at most `content_limit`
    a row). It gives `content_ids` (eager or in-graph), `add_special_tokens` and `pack`, the calls
    `SentenceEncoder`, its SavedModel and its tf.data pipelines make.

    A text is packed as `start_ids content end_ids`: `[cls] … [sep]` unless the tokenizer sets
    `start_tokens` / `end_tokens` (its `tokenizer.json` template: Qwen3 appends `<|endoftext|>` only),
    padded on its `padding_side` ("right", or "left" as Qwen3-Embedding's tokenizer pads)."""

    start_tokens = None  # None: (cls_token,)
    end_tokens = None  # None: (sep_token,)
    padding_side = "right"
    pair_separators = 1  # end tokens between the two texts of a pair (RoBERTa's `<s> a </s></s> b </s>`: 2)

    # A vocabulary (30,527 strings for MPNet) or merge list set as a Keras layer attribute is wrapped
    # and tracked element by element: 0.7 s of every model load on 2 cores, for plain strings that
    # hold no weights and are saved as assets. They are set as plain Python attributes.
    UNTRACKED_ATTRIBUTES = frozenset({"vocabulary", "merges", "_token_to_id_map", "_id_to_token_map"})

    def __setattr__(self, name, value):
        if name in self.UNTRACKED_ATTRIBUTES and isinstance(value, (list, tuple, dict)):
            object.__setattr__(self, name, value)
        else:
            super().__setattr__(name, value)

    # Tokenising has no tensor-dependent Python control flow, so AutoGraph is skipped: converting
    # TF Text's code cost seconds per trace (in tf.data maps, serving signatures and the first
    # `encode`), 4-9 s each on 2 cores.
    @tf.autograph.experimental.do_not_convert
    def content_ids(self, texts):
        """Token ids of each text of a 1-D string tensor: a `tf.RaggedTensor` [batch, (ids)] without
        special tokens, at most `max_length - 2` ids a row (the end of a long text is dropped, as
        sentence-transformers truncates).

        Runs the TF graph both eagerly and inside `tf.function`/`tf.data`.
        """
        texts = tf.convert_to_tensor(texts, dtype=tf.string)
        if texts.shape.rank != 1:
            raise ValueError(f"content_ids expects a 1-D string tensor, got shape {texts.shape}")
        if not tf.executing_eagerly():
            return self._content_ids_graph(texts)
        compiled = getattr(self, "_compiled_content_ids", None)
        if compiled is None:
            compiled = graph_function(self._content_ids_graph, input_signature=[tf.TensorSpec([None], tf.string)])
            # Not tracked: a cache, not state to save with the layer.
            object.__setattr__(self, "_compiled_content_ids", compiled)
        return compiled(texts)

    @property
    def start_ids(self):
        """The ids in front of every text's content ids (`(cls_token_id,)` by default)."""
        if self.start_tokens is None:
            return (int(self.cls_token_id),)
        return tuple(int(self.token_to_id(token)) for token in self.start_tokens)

    @property
    def end_ids(self):
        """The ids after every text's content ids (`(sep_token_id,)` by default)."""
        if self.end_tokens is None:
            return (int(self.sep_token_id),)
        return tuple(int(self.token_to_id(token)) for token in self.end_tokens)

    def add_special_tokens(self, content_ids):
        """`start ids end` (`cls ids sep`) for each row of a `tf.RaggedTensor` of content ids (ragged)."""
        rows = content_ids.nrows()
        parts = [
            content_ids if ids is None else fixed_ids(ids, rows, content_ids.dtype)
            for ids in (self.start_ids, None, self.end_ids)
            if ids is None or ids
        ]
        return tf.concat(parts, axis=1) if len(parts) > 1 else content_ids

    def pack(self, content_ids):
        """`{"token_ids", "padding_mask"}` int32 [batch, T]: `cls ids sep pad…` (or `pad… ids end` on the left)."""
        packed = self.add_special_tokens(content_ids)
        if self.padding_side == "left":
            reversed_rows = tf.reverse(packed, axis=[1])
            token_ids = tf.reverse(reversed_rows.to_tensor(default_value=self.pad_token_id), axis=[1])
            width = tf.shape(token_ids)[1]
            padding_mask = tf.reverse(tf.sequence_mask(packed.row_lengths(), maxlen=width, dtype=tf.int32), axis=[1])
        else:
            token_ids = packed.to_tensor(default_value=self.pad_token_id)
            padding_mask = tf.sequence_mask(packed.row_lengths(), maxlen=tf.shape(token_ids)[1], dtype=tf.int32)
        return {"token_ids": tf.cast(token_ids, tf.int32), "padding_mask": padding_mask}

    def untruncated_ids(self, texts):
        """Each text's content ids, however many (the tokenizer's own, before `content_limit`): 1-D strings →
        a `tf.RaggedTensor`."""
        raise NotImplementedError(f"{type(self).__name__} does not define untruncated_ids")

    def untruncated_id_rows(self, texts):
        """`untruncated_ids` of a Python list of texts, as NumPy int32 rows."""
        return numpy_rows(self.untruncated_ids(tf.constant(list(texts), dtype=tf.string)))

    @property
    def pair_middle_ids(self):
        """The ids between the two texts of a pair: `end_ids` × `pair_separators`."""
        return self.end_ids * self.pair_separators

    @tf.autograph.experimental.do_not_convert
    def pair_ids(self, texts_a, texts_b):
        """Cross-encoder input for aligned pairs, as the tokenizer.json's pair template packs them:
        `start a middle b end` (BERT `[CLS] a [SEP] b [SEP]`, RoBERTa / XLM-R / MPNet
        `<s> a </s></s> b </s>`, ModernBERT `[CLS] a [SEP] b [SEP]`), two `tf.RaggedTensor`s: ids and
        segment ids (0 for `start a` and the first separator, 1 for the rest), each row at most
        `max_length` long.

        A too long pair is cut as Hugging Face's "longest_first" truncation cuts it
        (`longest_first_lengths`, on the texts' untruncated lengths): a short text is kept whole and two
        long ones are cut to about half each.
        """
        first = self.untruncated_ids(tf.convert_to_tensor(texts_a, dtype=tf.string))
        second = self.untruncated_ids(tf.convert_to_tensor(texts_b, dtype=tf.string))
        middle = self.pair_middle_ids
        budget = self.max_length - len(self.start_ids) - len(middle) - len(self.end_ids)
        if budget < 0:
            raise ValueError(f"max_length {self.max_length} leaves no room for a pair's {budget} special tokens")
        keep_a, keep_b = longest_first_lengths(first.row_lengths(), second.row_lengths(), budget)
        first, second = leading_ids(first, keep_a), leading_ids(second, keep_b)
        rows, dtype = first.nrows(), first.dtype
        parts_a = [fixed_ids(self.start_ids, rows, dtype), first, fixed_ids(middle[:1], rows, dtype)]
        parts_b = [fixed_ids(middle[1:], rows, dtype), second, fixed_ids(self.end_ids, rows, dtype)]
        segment_a, segment_b = tf.concat(parts_a, axis=1), tf.concat(parts_b, axis=1)
        ids = tf.concat([segment_a, segment_b], axis=1)
        segments = tf.concat([tf.zeros_like(segment_a), tf.ones_like(segment_b)], axis=1)
        return tf.cast(ids, tf.int32), tf.cast(segments, tf.int32)

    def pair_id_rows(self, texts_a, texts_b, chunk_size=8192):
        """`pair_ids` for two aligned Python lists of texts: (id rows, segment rows), lists
        of NumPy int32 rows, tokenised in chunks of `chunk_size` pairs."""
        id_rows, segment_rows = [], []
        for start in range(0, len(texts_a), chunk_size):
            ids, segments = self.pair_ids(
                tf.constant(list(texts_a[start : start + chunk_size]), dtype=tf.string),
                tf.constant(list(texts_b[start : start + chunk_size]), dtype=tf.string),
            )
            id_rows.extend(numpy_rows(ids))
            segment_rows.extend(numpy_rows(segments))
        return id_rows, segment_rows
