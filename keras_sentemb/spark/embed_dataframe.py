"""A Spark DataFrame column of texts → a column of vectors (and packed codes)."""

from pyspark.ml.functions import predict_batch_udf
from pyspark.sql import functions as F
from pyspark.sql import types as T

from keras_sentemb.bulk.exported_model import ExportedModel
from keras_sentemb.bulk.job_arguments import check_batch_size
from keras_sentemb.spark.predict_fn import make_predict_fn


def embedding_udf(model_dir, batch_size=256, with_codes=None):
    """`(udf, with_codes)`: the `predict_batch_udf` of `model_dir`'s model for a string or
    binary column, and whether its result is a struct with codes (default: when the model
    has a `hash` signature).

    Raises FileNotFoundError / ValueError on the driver, before any task, for a folder
    without a model or codes asked of a model without them.
    """
    check_batch_size(batch_size)
    model = ExportedModel(model_dir, with_codes)  # checks the folder; loads nothing
    vectors = T.ArrayType(T.FloatType())
    if model.with_codes:
        return_type = T.StructType([T.StructField("embedding", vectors), T.StructField("code", T.StringType())])
    else:
        return_type = vectors
    udf = predict_batch_udf(
        make_predict_fn(model.model_dir, model.with_codes), return_type=return_type, batch_size=batch_size
    )
    return udf, model.with_codes


def embed_dataframe(
    df,
    text_column,
    model_dir,
    batch_size=256,
    with_codes=None,
    embedding_column="embedding",
    code_column="code",
):
    """`df` with the vectors of `text_column` added as `embedding_column`
    (array<float>) and, for a hashed model, packed codes as `code_column` (binary, MSB
    first: the rows of `HashedEncoder.hash`). Lazy, like every DataFrame transformation.

    Each vector is `encode`'s vector of that text (≤ 1e-5 at float32): the model is the
    exported SavedModel (or OpenVINO export) of `model_dir`, loaded once per Python
    worker, given batches of at most `batch_size` texts. A null text gets null columns.

    Args:
        df: a Spark DataFrame.
        text_column: a string or binary column of `df` (binary: UTF-8 bytes, invalid
            sequences replaced as `encode` does).
        model_dir: an exported model folder on a path every executor reads (version folder
            or its base folder).
        batch_size: texts per model call.
        with_codes: add codes (default: when the model has a `hash` signature).

    Raises:
        ValueError: `text_column` is missing or not string/binary, or the new columns
            already exist.

    Example:
    (Not run as a doctest: it needs PySpark and an exported model.)
        embedded = embed_dataframe(spark.read.parquet("docs.parquet"), "body", "serving/minilm")
        embedded.write.parquet("docs_with_vectors.parquet")
    """
    if text_column not in df.columns:
        raise ValueError(f"the DataFrame has no column {text_column!r} (it has {df.columns})")
    kind = df.schema[text_column].dataType
    if not isinstance(kind, (T.StringType, T.BinaryType)):
        raise ValueError(f"column {text_column!r} is {kind.simpleString()}; embed a string or binary column")
    udf, codes = embedding_udf(model_dir, batch_size, with_codes)
    taken = [c for c in (embedding_column, code_column if codes else None) if c and c in df.columns]
    if taken:
        raise ValueError(f"the DataFrame already has column(s) {taken}; name the new ones otherwise")
    text = F.col(text_column)
    result = udf(text)
    present = text.isNotNull()
    if not codes:
        return df.withColumn(embedding_column, F.when(present, result))
    struct_column = f"__{embedding_column}_and_{code_column}"
    return (
        df.withColumn(struct_column, F.when(present, result))
        .withColumn(embedding_column, F.col(f"{struct_column}.embedding"))
        .withColumn(code_column, F.unhex(F.col(f"{struct_column}.code")))
        .drop(struct_column)
    )
