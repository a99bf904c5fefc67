"""The `map_batches` callable class that embeds a Ray Data column of texts."""

import math

import numpy as np
import pyarrow as pa
import ray

from keras_sentemb.bulk.exported_model import load_exported_model


def _actor_cpus():
    """CPUs Ray reserved for this actor, rounded up (None outside a Ray worker)."""
    try:
        cpus = ray.get_runtime_context().get_assigned_resources().get("CPU")
    except Exception:  # noqa: BLE001  (not in a Ray worker, or an older Ray)
        return None
    return max(1, math.ceil(cpus - 1e-9)) if cpus else None


class EmbedBatches:
    """A Ray Data actor class: each actor loads the exported model of `model_dir` once and
    turns batches (`batch_format="pyarrow"` or `"numpy"`) with a `text_column` of str or
    bytes into batches with `embedding` (list<float32>, `encode`'s vectors) and, for a
    hashed model, `code` (binary, packed MSB first); the text column is dropped unless
    `keep_text`. A null text is an error naming the batch row. The model uses `threads` CPU
    threads (default: the CPUs Ray reserved for the actor, rounded up).

    Example:
    (Not run as a doctest: it needs Ray and an exported model.)
        vectors = ray.data.read_parquet("docs.parquet").map_batches(
            EmbedBatches, fn_constructor_args=("serving/minilm", "body"),
            batch_size=256, batch_format="pyarrow", compute=ray.data.ActorPoolStrategy(size=2))
        vectors.write_parquet("out/vectors")
    """

    def __init__(self, model_dir, text_column="text", with_codes=None, keep_text=False, threads=None):
        self.model = load_exported_model(str(model_dir), with_codes, threads or _actor_cpus())
        self.text_column = text_column
        self.keep_text = keep_text

    def __call__(self, batch):
        table = batch if isinstance(batch, pa.Table) else pa.table(dict(batch))
        if self.text_column not in table.column_names:
            raise ValueError(f"the batch has no column {self.text_column!r} (it has {table.column_names})")
        texts = table.column(self.text_column).to_pylist()
        if None in texts:
            raise ValueError(f"row {texts.index(None)} of a batch has a null {self.text_column!r}")
        embeddings, codes = self.model.embed(texts)
        width = embeddings.shape[1]
        flat = pa.array(np.ascontiguousarray(embeddings, np.float32).reshape(-1))
        offsets = pa.array(np.arange(0, (len(texts) + 1) * width, width, dtype=np.int32))
        if not self.keep_text:
            table = table.drop_columns([self.text_column])
        table = table.append_column("embedding", pa.ListArray.from_arrays(offsets, flat))
        if codes is not None:
            table = table.append_column("code", pa.array([row.tobytes() for row in codes], pa.binary()))
        return table
