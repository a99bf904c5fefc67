"""The one batched, length-bucketed inference loop: rows of token ids in, one output row each out.

Rows are sorted by packed length, cut into batches of `batch_size`, each batch padded to the smallest bucket
of the ladder (`keras_sentemb.data.length_buckets`) that holds its longest row, run through one runtime,
and the outputs put back in input order, with a progress bar on long work. `EmbeddingModel.predict_rows`
(every Keras model) and `exported.ExportedEncoder` (an exported folder, without TensorFlow) both run it.
"""

import contextlib

import numpy as np
from tqdm.auto import tqdm

from keras_sentemb.data.length_buckets import plan_batches
from keras_sentemb.utils.unit_vectors import unit_rows

# `encode(progress=None)` / `predict_pairs(progress=None)` show a bar from this many rows on.
PROGRESS_THRESHOLD = 2048


def check_batch_size(batch_size):
    """`batch_size` if it is a positive int (NumPy integers included), else ValueError.

    >>> check_batch_size(0)
    Traceback (most recent call last):
    ...
    ValueError: batch_size must be a positive int, got 0
    """
    if isinstance(batch_size, bool) or not isinstance(batch_size, (int, np.integer)) or batch_size < 1:
        raise ValueError(f"batch_size must be a positive int, got {batch_size!r}")
    return int(batch_size)


class DenseRows:
    """Where `run_batched_rows` puts each batch's outputs by default: one float32 array [rows, width]. Another
    sink with the same `put(indices, values)` / `result()` keeps them its own way (`SparseEncoder`'s CSR rows)."""

    def __init__(self, count, width):
        self.array = np.zeros((count, width), dtype=np.float32)

    def put(self, indices, values):
        self.array[indices] = values

    def result(self):
        return self.array


def run_batched_rows(
    rows, lengths, pack_batch, runtime, width, batch_size, buckets, progress, *, unit, desc, name, sink=None
):
    """float32 [len(rows), width], row i the output of `rows[i]` (or what `sink.result()` makes of the rows).

    Args:
        rows: token-id rows (content ids); `lengths[i]` is row i's packed length.
        pack_batch: `(rows, length) -> arrays`, the runtime's inputs padded to `length`.
        runtime: the callable run on each packed batch. One with `padding_buckets(ladder)` pads each text to
            its own bucket (reduced precision); one with `padded_length(batch, length)` chooses the padded
            length; one with `max_batch_tokens` (OpenVINO's: memory) gets a batch of more tokens (texts ×
            padded length) in parts of at most that many, each at the batch's length.
        buckets: the padded lengths (`length_buckets(max_length)`).
        progress: a bar, or None for one from `PROGRESS_THRESHOLD` rows on.
        unit / desc / name: the bar's unit and label, the model named in the NaN error.
        sink: receives each batch (`put(indices, values)`) and returns the result (`result()`); `DenseRows`
            when None.

    Raises:
        ValueError: a non-finite output (never a silently written or indexed NaN file).

    >>> double = lambda ids, mask: (ids * mask).sum(axis=1, keepdims=True).astype(np.float32)
    >>> pack = lambda rows, length: (np.array([r + [0] * (length - len(r)) for r in rows]),) * 2
    >>> run_batched_rows([[1, 2], [3]], [2, 1], pack, double, 1, 8, (1, 2, 4), False, unit="", desc="", name="m")
    array([[5.],
           [9.]], dtype=float32)
    """
    batch_size = check_batch_size(batch_size)
    sink = DenseRows(len(rows), width) if sink is None else sink
    if not len(rows):
        return sink.result()
    lengths = np.asarray(lengths, dtype=np.int64)
    padded_length = getattr(runtime, "padded_length", None)
    own_buckets = getattr(runtime, "padding_buckets", lambda ladder: ())(buckets)
    one_length_per_batch = bool(own_buckets)
    buckets = own_buckets or buckets
    if one_length_per_batch:  # reduced precision: each text padded to its own bucket, whatever it is batched with
        padded_length = None
    max_batch_tokens = getattr(runtime, "max_batch_tokens", None)
    show = progress if progress is not None else len(rows) >= PROGRESS_THRESHOLD
    broken = []
    # No bar object at all when hidden: a disabled tqdm still costs ~45 µs, 4 % of a single sentence on OpenVINO.
    with tqdm(total=len(rows), unit=unit, desc=desc) if show else contextlib.nullcontext() as bar:
        for batch in plan_batches(lengths, batch_size, buckets, one_length_per_batch):
            length = padded_length(len(batch.indices), batch.length) if padded_length else batch.length
            part = max(1, max_batch_tokens // length) if max_batch_tokens else len(batch.indices)
            for start in range(0, len(batch.indices), part):
                indices = batch.indices[start : start + part]
                values = np.asarray(runtime(*pack_batch([rows[i] for i in indices], length)))
                broken.extend(np.asarray(indices)[~np.isfinite(values).all(axis=1)].tolist())
                sink.put(indices, values)
            if bar is not None:
                bar.update(len(batch.indices))
    if broken:
        raise ValueError(
            f"{name}: the model's output holds NaN or infinity for {len(broken)} of {len(rows)} "
            f"input(s) (the first: #{min(broken)}); its weights or its config (an epsilon ≤ 0, a "
            "scale of 0) are broken, so nothing is returned"
        )
    return sink.result()


def finished_vectors(vectors, truncate_dim, normalize):
    """The first `truncate_dim` features (Matryoshka truncation; None keeps all), then unit length with
    `normalize` (after truncating, as sentence-transformers does): float32, C-contiguous.

    >>> finished_vectors(np.array([[3.0, 4.0, 12.0]]), 2, True)
    array([[0.6, 0.8]], dtype=float32)
    """
    vectors = np.ascontiguousarray(vectors[:, :truncate_dim] if truncate_dim else vectors, dtype=np.float32)
    return unit_rows(vectors) if normalize else vectors


class BatchedRows:
    """`predict_rows` for a model with `packed_length(row)`, `pack_batch(rows, length)`, `embedding_dim`,
    `length_buckets`, `name` and `inference_runtime()` (its default runtime): `EmbeddingModel` (every Keras
    model) and `exported.ExportedEncoder`."""

    def predict_rows(
        self, rows, batch_size, progress, unit="sent", desc="encode", runtime=None, lengths=None, sink=None
    ):
        """float32 [len(rows), embedding_dim], row i the output of `rows[i]` (`run_batched_rows` on `runtime`,
        by default `inference_runtime()`); `lengths`, each row's `packed_length` where the caller counted it
        already (the server's rows carry theirs); `sink`, where the outputs go (`run_batched_rows`)."""
        return run_batched_rows(
            rows,
            [self.packed_length(row) for row in rows] if lengths is None else lengths,
            self.pack_batch,
            runtime or self.inference_runtime(),
            self.embedding_dim,
            batch_size,
            self.length_buckets,
            progress,
            unit=unit,
            desc=desc,
            name=self.name,
            sink=sink,
        )
