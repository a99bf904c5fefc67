"""The `make_predict_fn` that Spark ML's `predict_batch_udf` takes, over an exported model folder."""

import functools

import numpy as np
from pyspark import TaskContext

from keras_sentemb.bulk.exported_model import load_exported_model


def _task_cpus():
    """CPUs Spark gives each task (`spark.task.cpus`), read in the worker; None outside a task."""
    context = TaskContext.get()
    return context.cpus() if context is not None else None


def _load_predict_fn(model_dir, with_codes, threads=None):
    model = load_exported_model(model_dir, with_codes, threads or _task_cpus())

    def predict(texts):
        embeddings, codes = model.embed([b"" if text is None else text for text in texts])
        if not with_codes:
            return embeddings
        return {"embedding": embeddings, "code": np.array([row.tobytes().hex() for row in codes], dtype=object)}

    return predict


def make_predict_fn(model_dir, with_codes=False, threads=None):
    """A zero-argument function for `pyspark.ml.functions.predict_batch_udf`: called on a
    worker, it loads the model of `model_dir` (once per Python worker) and returns
    `predict(texts)`.

    `texts` is a NumPy array of str or bytes (a Spark string or binary column); a null
    becomes "" (`embed_dataframe` nulls its vector). `predict` returns float32 [n, d] for
    `return_type=ArrayType(FloatType())`, or with `with_codes` a dict
    `{"embedding": [n, d], "code": hex strings [n]}` for
    `StructType([embedding: array<float>, code: string])` (`unhex` the code column for
    bytes: predict_batch_udf has no binary results).

    The model uses `threads` CPU threads (default: the task's CPUs, `spark.task.cpus`, 1
    unless set): Spark runs one Python worker per task slot, so each model keeps to its
    slot (on 2 cores, 20,000 lines: 32.8 s against 34.7 s with every model on both cores).

    The function is a `functools.partial` of this module's loader, so Spark ships the
    folder path, not a model, and each worker imports this module.

    Example:
    (Not run as a doctest: it needs PySpark and an exported model.)
        from pyspark.ml.functions import predict_batch_udf
        from pyspark.sql.types import ArrayType, FloatType
        embed = predict_batch_udf(make_predict_fn("serving/minilm/1"),
                                  return_type=ArrayType(FloatType()), batch_size=256)
        df.withColumn("embedding", embed("text"))
    """
    return functools.partial(_load_predict_fn, str(model_dir), bool(with_codes), threads)
