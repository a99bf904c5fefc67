"""Where a batch's tokens are, and how they attend to each other: the one thing the runtimes do differently.

A family's inference math (`families/<family>/inference.py`) is written once, for token states
x [..., hidden] in any layout, and asks its layout for what depends on it:

| layout          | tokens              | used by                                         | attention                       |
|-----------------|---------------------|-------------------------------------------------|---------------------------------|
| `PaddedTokens`  | [B, T] + a mask     | the fused OpenVINO and LiteRT graphs            | [B, heads, T, T], keys masked   |
| `FlatTokens`    | [Σℓ], one text after another | the raw-string SavedModel ("unpadded") | per group of consecutive texts, each padded to its own longest |
| `OneText`       | [ℓ]                 | the SavedModel's requests of one text           | [heads, ℓ, ℓ], nothing masked   |

Each gives the tokens' `positions()` (0, 1, … within each text), `running_count(flags)` (the count of
flags so far within each text: RoBERTa's and MPNet's position ids), and `attend(query, key, value, …)`:

    A = softmax(Q·Kᵀ · scale + bias + M) · V,   Q [.., heads, D], K and V [.., groups, D]

with the key/value heads repeated to the query heads (grouped-query attention), `M` closing padding and,
where asked, keys outside `visible=(before, after)` (causal: (None, 0); a window: (w, w)), scores soft-
capped c·tanh(s/c) where asked, and `bias(length)` an additive [1, heads, length, length] (MPNet's relative
positions). A dense layer sees the real tokens only in `FlatTokens` ("removing padding", as NVIDIA's
Effective Transformer runs BERT): Σℓ rows instead of N·max ℓ.

>>> ids = tf.ragged.constant([[2, 5, 6, 3], [2, 7, 3]])
>>> FlatTokens(ids).positions().numpy().tolist()
[0, 1, 2, 3, 0, 1, 2]
>>> PaddedTokens(tf.constant([[2, 5, 3]]), tf.constant([[1, 1, 1]])).positions().numpy().tolist()
[[0, 1, 2]]
"""

import tensorflow as tf

from keras_sentemb.families.inference_ops import MASKED

# Attention groups a request of texts laid one after another is cut into: 1 pads every text's attention
# to the longest text; 4 took requests of 32 STS-B sentences from 0.86x to 1.0x `encode`'s speed on 2 cores.
ATTENTION_GROUPS = 4


def attention(query, key, value, key_mask=None, bias=None, visible=None, scale=None, soft_cap=None):
    """Self-attention of texts side by side: query [n, T, heads, D] (T′ query rows), key and value
    [n, T, groups, D] → context [n, T′, heads·D]. `key_mask` [n, T] (1 for a real key) or None; `bias`
    [1 or n, heads, T′, T] additive or None; `visible` = (before, after): key j is seen by query i when
    i − j ≤ before and j − i ≤ after (None: unbounded); `scale` defaults to 1/√D."""
    heads, groups, size = query.shape[-2], key.shape[-2], query.shape[-1]
    query, key, value = (tf.transpose(t, [0, 2, 1, 3]) for t in (query, key, value))  # [n, heads, T, D]
    if groups != heads:  # key/value head g serves query heads g·r … g·r + r − 1
        key, value = (tf.repeat(t, heads // groups, axis=1) for t in (key, value))
    scores = tf.matmul(query, key, transpose_b=True) * (size**-0.5 if scale is None else scale)
    if soft_cap:
        scores = tf.tanh(scores / soft_cap) * soft_cap
    additive = None
    if key_mask is not None:
        additive = tf.reshape(1.0 - tf.cast(key_mask, tf.float32), tf.stack([tf.shape(key_mask)[0], 1, 1, -1])) * MASKED
    if visible is not None:
        window = _window_mask(tf.shape(scores)[-2], tf.shape(scores)[-1], *visible)
        additive = window if additive is None else additive + window
    if bias is not None:
        scores += bias
    if additive is not None:
        scores += additive
    context = tf.matmul(tf.nn.softmax(scores, axis=-1), value)  # [n, heads, T′, D]
    context = tf.transpose(context, [0, 2, 1, 3])
    return tf.reshape(context, tf.concat([tf.shape(context)[:2], [heads * size]], axis=0))


def _window_mask(queries, keys, before, after):
    """[1, 1, T′, T] additive: 0 where i − j ≤ before and j − i ≤ after (the last T′ query positions)."""
    i = tf.expand_dims(tf.range(keys - queries, keys), 1)
    j = tf.expand_dims(tf.range(keys), 0)
    seen = tf.ones(tf.stack([queries, keys]), tf.bool)
    if before is not None:
        seen = tf.logical_and(seen, i - j <= before)
    if after is not None:
        seen = tf.logical_and(seen, j - i <= after)
    return tf.reshape(1.0 - tf.cast(seen, tf.float32), tf.stack([1, 1, queries, keys])) * MASKED


class PaddedTokens:
    """A padded batch: `token_ids` and `padding_mask` [B, T] (1 for a real token), as the fused graphs
    take it. Positions count the padded row's slots (0 … T − 1), as keras-hub's and Hugging Face's
    models number them."""

    def __init__(self, token_ids, padding_mask):
        self.ids = tf.convert_to_tensor(token_ids, tf.int32)
        self.padding_mask = tf.convert_to_tensor(padding_mask)
        self.length = tf.shape(self.ids)[1]

    def positions(self):
        return tf.broadcast_to(tf.expand_dims(tf.range(self.length), 0), tf.shape(self.ids))

    def running_count(self, flags):
        return tf.cumsum(tf.cast(flags, tf.int32), axis=1)

    def attend(self, query, key, value, bias=None, **options):
        return attention(query, key, value, self.padding_mask, None if bias is None else bias(self.length), **options)


class FlatTokens:
    """Texts laid one after another: `sequences`, a `tf.RaggedTensor` [N, (ℓ)] of token ids with their
    special tokens; states are [Σℓ, …]. Attention runs in `attention_groups` groups of consecutive texts,
    each scattered into a block padded to its own longest text and gathered back (fastest with the texts
    sorted longest first; any order gives the same states)."""

    def __init__(self, sequences, attention_groups=ATTENTION_GROUPS):
        if not isinstance(attention_groups, int) or isinstance(attention_groups, bool) or attention_groups < 1:
            raise ValueError(f"attention_groups must be a positive int, got {attention_groups!r}")
        sequences = tf.cast(sequences, tf.int32)
        self.ids = sequences.flat_values
        self.lengths = tf.cast(sequences.row_lengths(), tf.int32)
        self._text_of_token = tf.cast(sequences.value_rowids(), tf.int32)
        self._first_token = tf.cast(sequences.row_starts(), tf.int32)
        count = tf.size(self.lengths)
        text_bounds = [(count * group) // attention_groups for group in range(attention_groups + 1)]
        token_starts = tf.concat([[0], tf.cumsum(self.lengths)], axis=0)
        self._groups = [
            (self.lengths[start:end], token_starts[start], token_starts[end])
            for start, end in zip(text_bounds[:-1], text_bounds[1:])
        ]

    def positions(self):
        return tf.ragged.range(self.lengths).flat_values

    def running_count(self, flags):
        running = tf.cumsum(tf.cast(flags, tf.int32))
        before = tf.gather(tf.concat([[0], running], axis=0), self._first_token)  # the count before each text
        return running - tf.gather(before, self._text_of_token)

    def attend(self, query, key, value, bias=None, **options):
        contexts = []
        for lengths, first, end in self._groups:
            longest = group_longest(lengths)
            coordinates = token_coordinates(lengths)
            blocks = [
                tf.scatter_nd(coordinates, t[first:end], tf.concat([[tf.size(lengths), longest], tf.shape(t)[1:]], 0))
                for t in (query, key, value)
            ]
            key_mask = tf.sequence_mask(lengths, longest)
            context = attention(*blocks, key_mask, None if bias is None else bias(longest), **options)
            contexts.append(tf.gather_nd(context, coordinates))
        return tf.concat(contexts, axis=0)


class OneText:
    """One text: `token_ids` [ℓ] with its special tokens; states are [ℓ, …]. Every token is real: attention
    has nothing to scatter, gather or mask (the serving graph's path for a request of one text)."""

    def __init__(self, token_ids):
        self.ids = tf.cast(token_ids, tf.int32)
        self.length = tf.size(self.ids)

    def positions(self):
        return tf.range(self.length)

    def running_count(self, flags):
        return tf.cumsum(tf.cast(flags, tf.int32))

    def attend(self, query, key, value, bias=None, **options):
        blocks = [tf.expand_dims(t, 0) for t in (query, key, value)]
        return attention(*blocks, None, None if bias is None else bias(self.length), **options)[0]


def token_coordinates(lengths):
    """[Σℓ, 2] (text, position) of every token of texts of `lengths`, one text after another."""
    return tf.stack([tf.repeat(tf.range(tf.size(lengths)), lengths), tf.ragged.range(lengths).flat_values], axis=1)


def group_longest(lengths):
    """The padded length of a group of texts of `lengths` (1 for no texts)."""
    return tf.reduce_max(tf.concat([lengths, [1]], axis=0))


def to_padded(flat_states, lengths):
    """[Σℓ, …] states of texts of `lengths` (one after another) → [N, max ℓ, …], zeros after each text's
    end (the layout of a padded batch)."""
    lengths = tf.cast(lengths, tf.int32)
    longest = tf.reduce_max(tf.concat([lengths, [0]], axis=0))
    shape = tf.concat([[tf.size(lengths), longest], tf.shape(flat_states)[1:]], axis=0)
    return tf.scatter_nd(token_coordinates(lengths), flat_states, shape)
