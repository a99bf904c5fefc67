"""Length buckets: the ONE ladder of padded lengths, for `encode` and for tf.data pipelines.

Smart batching groups texts of similar length so that little padding is computed.

The plan sorts texts by token length (longest first, so that the largest batch, and any
out-of-memory error, comes first), cuts the order into batches and pads each batch to the
smallest *bucket length* that holds its longest text. The bucket ladder is fine where
sentences are (1-token steps up to 32, then steps of ≤ 12.5 %), so padding stays small
while the set of shapes stays bounded (useful for XLA and for kernel caches).

The same ladder groups training examples in `keras_sentemb.data.pipelines`
(`bucket_boundaries`): an example goes into the bucket it would be padded to by `encode`.
"""

import dataclasses

import numpy as np


def length_buckets(max_length):
    """The bucket ladder up to `max_length`: 1…32, then +4 to 64, +8 to 128, +16 to 256,
    +32 beyond; `max_length` itself is always the last bucket.

    >>> length_buckets(40)
    (1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32, 36, 40)
    """
    ladder = list(range(1, 33))
    for step, stop in ((4, 64), (8, 128), (16, 256), (32, 1 << 30)):
        while ladder[-1] < min(stop, max_length):
            ladder.append(ladder[-1] + step)
    ladder = [b for b in ladder if b < max_length] + [max_length]
    return tuple(ladder)


def bucket_boundaries(max_length):
    """The ladder in the form of `tf.data.Dataset.bucket_by_sequence_length`: its buckets
    are half-open [lo, hi), so rung b becomes the boundary b + 1, and the bucket of an
    example of length L is the rung `encode` pads L to (the last rung needs no boundary).

    >>> bucket_boundaries(40)[-2:]
    [33, 37]
    >>> len(bucket_boundaries(40)) == len(length_buckets(40)) - 1
    True
    """
    return [rung + 1 for rung in length_buckets(max_length)[:-1]]


@dataclasses.dataclass(frozen=True)
class PlannedBatch:
    """Rows `indices` of the input, to be padded to `length` tokens."""

    indices: np.ndarray
    length: int


def plan_batches(lengths, batch_size, buckets, one_length_per_batch=False):
    """Cuts texts with token `lengths` into batches of at most `batch_size`.

    Returns a list of `PlannedBatch`; every input index appears exactly once, and each
    batch's `length` is the smallest bucket ≥ its longest text.

    `one_length_per_batch=True` never puts texts of different buckets in one batch: every
    text is padded to its own bucket, whatever else is encoded with it (for reduced
    precision, where a vector moves with the padding it was computed at).

    >>> [(b.indices.tolist(), b.length) for b in plan_batches([3, 9, 4], 2, (4, 8, 16))]
    [([1, 2], 16), ([0], 4)]
    >>> [(b.indices.tolist(), b.length) for b in plan_batches([3, 9, 4], 2, (4, 8, 16), one_length_per_batch=True)]
    [([1], 16), ([2, 0], 4)]
    """
    lengths = np.asarray(lengths, dtype=np.int64)
    if batch_size < 1:
        raise ValueError(f"batch_size must be >= 1, got {batch_size}")
    buckets = np.asarray(sorted(buckets), dtype=np.int64)
    if lengths.size and lengths.max() > buckets[-1]:
        raise ValueError(f"a text of {lengths.max()} tokens exceeds the largest bucket {buckets[-1]}")
    order = np.argsort(-lengths, kind="stable")
    groups = [order]
    if one_length_per_batch and len(order):
        bucket_of = buckets[np.searchsorted(buckets, lengths[order])]  # descending along the order
        cuts = np.flatnonzero(np.diff(bucket_of)) + 1
        groups = np.split(order, cuts)
    batches = []
    for group in groups:
        for start in range(0, len(group), batch_size):
            indices = group[start : start + batch_size]
            longest = lengths[indices].max()
            length = int(buckets[np.searchsorted(buckets, longest)])
            batches.append(PlannedBatch(indices=indices, length=length))
    return batches


def pack_rows(rows, length, start_ids, end_ids, pad_id, padding_side="right"):
    """Dense `token_ids` and `padding_mask` [len(rows), length] for content-id rows.

    Each row becomes `*start_ids, *row, *end_ids` (an int is one id), padded with `pad_id` after it
    (`padding_side="right"`) or before it ("left", as decoder embedders such as Qwen3-Embedding
    pad); rows must already fit (`len(row) + len(start_ids) + len(end_ids) <= length`).

    >>> pack_rows([[7, 8]], 5, [], 9, 0, padding_side="left")[0].tolist()
    [[0, 0, 7, 8, 9]]
    """
    start_ids = [start_ids] if np.isscalar(start_ids) else list(start_ids)
    end_ids = [end_ids] if np.isscalar(end_ids) else list(end_ids)
    token_ids = np.full((len(rows), length), pad_id, dtype=np.int32)
    padding_mask = np.zeros((len(rows), length), dtype=np.int32)
    for i, row in enumerate(rows):
        sequence = np.concatenate([start_ids, np.asarray(row, dtype=np.int64), end_ids]).astype(np.int32)
        at = length - len(sequence) if padding_side == "left" else 0
        token_ids[i, at : at + len(sequence)] = sequence
        padding_mask[i, at : at + len(sequence)] = 1
    return token_ids, padding_mask


def pack_sequence_rows(id_rows, segment_rows, length, pad_id):
    """Dense `token_ids`, `segment_ids` and `padding_mask` [len(rows), length] for complete
    sequences (special tokens already in place, e.g. cross-encoder pairs); rows must fit.

    >>> ids, segments, mask = pack_sequence_rows([[2, 5, 3, 6, 3]], [[0, 0, 0, 1, 1]], 6, 0)
    >>> ids.tolist(), segments.tolist(), mask.tolist()
    ([[2, 5, 3, 6, 3, 0]], [[0, 0, 0, 1, 1, 0]], [[1, 1, 1, 1, 1, 0]])
    """
    token_ids = np.full((len(id_rows), length), pad_id, dtype=np.int32)
    segment_ids = np.zeros((len(id_rows), length), dtype=np.int32)
    padding_mask = np.zeros((len(id_rows), length), dtype=np.int32)
    for i, (ids, segments) in enumerate(zip(id_rows, segment_rows)):
        token_ids[i, : len(ids)] = ids
        segment_ids[i, : len(ids)] = segments
        padding_mask[i, : len(ids)] = 1
    return token_ids, segment_ids, padding_mask
