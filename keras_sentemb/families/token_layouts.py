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
where asked, keys outside `visible=(before, after)` (causal: (None, 0); a window: (w, w), computed in blocks
of w with `in_blocks=True`), scores soft-
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

from keras_sentemb.families.inference_ops import masked_score

# Attention groups a request of texts laid one after another is cut into: 1 pads every text's attention
# to the longest text; 4 took requests of 32 STS-B sentences from 0.86x to 1.0x `encode`'s speed on 2 cores.
ATTENTION_GROUPS = 4


def attention(
    query, key, value, key_mask=None, bias=None, visible=None, scale=None, soft_cap=None, in_blocks=False, dropout=None
):
    """Self-attention of texts side by side: query [n, T, heads, D] (T′ query rows), key and value
    [n, T, groups, D] → context [n, T′, heads·D]. `key_mask` [n, T] (1 for a real key) or None; `bias`
    [1 or n, heads, T′, T] additive or None; `visible` = (before, after): key j is seen by query i when
    i − j ≤ before and j − i ≤ after (None: unbounded); `scale` defaults to 1/√D. `in_blocks`: a window
    `visible` = (w, w) of self-attention (T′ = T) computed by `attention_in_windows` (ModernBERT's local
    layers, as its Keras layer computes them). `dropout`: applied to the attention weights (a Keras layer's,
    in training)."""
    heads, groups, size = query.shape[-2], key.shape[-2], query.shape[-1]
    scale = size**-0.5 if scale is None else scale
    if in_blocks:
        if visible is None or visible[0] is None or visible[0] != visible[1] or bias is not None or soft_cap or dropout:
            raise ValueError(
                f"in_blocks computes a window (w, w) without bias, soft cap or dropout, got visible={visible!r}"
            )
        if groups != heads:
            key, value = (tf.repeat(t, heads // groups, axis=2) for t in (key, value))
        return attention_in_windows(query, key, value, key_mask, visible[0], scale)
    return _full_attention(query, key, value, key_mask, bias, visible, scale, soft_cap, dropout)


def _full_attention(query, key, value, key_mask, bias, visible, scale, soft_cap, dropout=None):
    """`attention` as one [n, heads, T′, T] softmax."""
    heads, groups, size = query.shape[-2], key.shape[-2], query.shape[-1]
    query, key, value = (tf.transpose(t, [0, 2, 1, 3]) for t in (query, key, value))  # [n, heads, T, D]
    if groups != heads:  # key/value head g serves query heads g·r … g·r + r − 1
        key, value = (tf.repeat(t, heads // groups, axis=1) for t in (key, value))
    scores = tf.matmul(query, key, transpose_b=True) * scale
    if soft_cap:
        scores = tf.tanh(scores / soft_cap) * soft_cap
    # float32 in the runtimes' graphs; a Keras layer's compute dtype (bfloat16 in mixed precision) there
    dtype, additive = scores.dtype, None
    if key_mask is not None:
        real = tf.cast(key_mask, dtype)
        additive = tf.reshape(1 - real, tf.stack([tf.shape(key_mask)[0], 1, 1, -1])) * masked_score(dtype)
    if visible is not None:
        window = _window_mask(tf.shape(scores)[-2], tf.shape(scores)[-1], *visible, dtype=dtype)
        additive = window if additive is None else additive + window
    if bias is not None:
        scores += tf.cast(bias, dtype)
    if additive is not None:
        scores += additive
    weights = tf.nn.softmax(scores, axis=-1)
    context = tf.matmul(weights if dropout is None else dropout(weights), value)  # [n, heads, T′, D]
    context = tf.transpose(context, [0, 2, 1, 3])
    return tf.reshape(context, tf.concat([tf.shape(context)[:2], [heads * size]], axis=0))


def attention_in_windows(query, key, value, key_mask, window, scale):
    """`attention` with |i − j| ≤ `window`, computed block by block (query, key, value [n, T, heads, D] →
    [n, T, heads·D]), ModernBERT's local layers in the Keras layer and every runtime: the T positions are cut into
    ⌈T/B⌉ blocks of B = min(T, window); the queries of a block see the keys of that block and its two
    neighbours (3B keys, every key within `window` of them, zeros past the ends), masked to the real keys
    within `window`: T·3B scores instead of T² (a 2,048-token text's local layers cost four 512-token
    texts'), the same softmax for every real query. One graph for every length (no branch on T: int8
    calibration and LiteRT see the ops that run).

    >>> x = tf.random.stateless_normal([1, 9, 2, 4], seed=[1, 2])
    >>> full = _full_attention(x, x, x, None, None, (2, 2), 0.5, None)  # one [9, 9] softmax a head
    >>> float(tf.reduce_max(tf.abs(attention_in_windows(x, x, x, None, 2, 0.5) - full))) < 1e-6
    True
    """
    n, length = tf.shape(query)[0], tf.shape(query)[1]
    heads, size = query.shape[-2], query.shape[-1]
    block = tf.minimum(length, window)
    blocks = (length + block - 1) // block
    tail = blocks * block - length

    def with_neighbours(x):
        """[n, T, C] → [n, blocks, 3B, C]: each block's rows with its two neighbours' (zeros past the ends)."""
        x = tf.pad(x, [[0, 0], [block, tail + block], [0, 0]])
        x = tf.reshape(x, tf.stack([n, blocks + 2, block, tf.shape(x)[2]]))
        shape = tf.stack([-1, blocks, -1, -1])  # tf.slice, not x[:, 1:-1]: LiteRT has builtins for it
        return tf.concat([tf.slice(x, [0, first, 0, 0], shape) for first in (0, 1, 2)], axis=2)

    def by_heads(x, rows):
        """[n, blocks, rows, heads·D] → [n·blocks, heads, rows, D]."""
        return tf.transpose(tf.reshape(x, tf.stack([n * blocks, rows, heads, size])), [0, 2, 1, 3])

    # float32 in the runtimes' graphs; the Keras layer's compute dtype (bfloat16 in mixed precision)
    dtype = query.dtype
    flat = [tf.reshape(t, tf.stack([n, length, heads * size])) for t in (query, key, value)]
    queries = by_heads(tf.pad(flat[0], [[0, 0], [0, tail], [0, 0]]), block)  # [n·blocks, heads, B, D]
    key, value = (by_heads(with_neighbours(t), 3 * block) for t in flat[1:])  # [n·blocks, heads, 3B, D]
    # (expand_dims, not [:, None]: LiteRT has no new-axis slice)
    real = tf.ones(tf.stack([n, length, 1]), dtype) if key_mask is None else tf.expand_dims(tf.cast(key_mask, dtype), 2)
    real = tf.reshape(with_neighbours(real), tf.stack([n * blocks, 1, 1, 3 * block]))
    offsets = tf.expand_dims(tf.range(3 * block), 0) - block - tf.expand_dims(tf.range(block), 1)  # j − i, [B, 3B]
    near = tf.cast(tf.abs(offsets) <= window, dtype)
    scores = tf.matmul(queries, key, transpose_b=True) * tf.cast(scale, dtype)
    weights = tf.nn.softmax(scores + (1 - real * near) * masked_score(dtype), axis=-1)
    context = tf.transpose(tf.matmul(weights, value), [0, 2, 1, 3])  # [n·blocks, B, heads, D]
    return tf.slice(
        tf.reshape(context, tf.stack([n, blocks * block, heads * size])), [0, 0, 0], tf.stack([-1, length, -1])
    )


def _window_mask(queries, keys, before, after, dtype=tf.float32):
    """[1, 1, T′, T] additive: 0 where i − j ≤ before and j − i ≤ after (the last T′ query positions)."""
    i = tf.expand_dims(tf.range(keys - queries, keys), 1)
    j = tf.expand_dims(tf.range(keys), 0)
    seen = tf.ones(tf.stack([queries, keys]), tf.bool)
    if before is not None:
        seen = tf.logical_and(seen, i - j <= before)
    if after is not None:
        seen = tf.logical_and(seen, j - i <= after)
    return tf.reshape(1 - tf.cast(seen, dtype), tf.stack([1, 1, queries, keys])) * masked_score(dtype)


class PaddedTokens:
    """A padded batch: `token_ids` and `padding_mask` [B, T] (1 for a real token), as the fused graphs
    take it. Positions count the padded row's slots (0 … T − 1), as keras-hub's and Hugging Face's
    models number them."""

    def __init__(self, token_ids, padding_mask):
        self.ids = tf.convert_to_tensor(token_ids, tf.int32)
        self.padding_mask = tf.convert_to_tensor(padding_mask)
        self.length = tf.shape(self.ids)[1]

    @classmethod
    def of_mask(cls, padding_mask):
        """The layout of a padded batch known by its mask alone (a Keras layer's call: its blocks read no ids)."""
        mask = tf.convert_to_tensor(padding_mask)
        return cls(tf.cast(mask, tf.int32), mask)

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
