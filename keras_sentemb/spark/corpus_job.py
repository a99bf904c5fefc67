"""Text files → Parquet of (id, embedding, code) on Spark, every line accounted for.

files ─ count lines / blank lines ─────────────────────────────┐
files ─ numbered non-blank lines ─ repartition ─ predict_batch_udf ─ Parquet (staging)
                                                               └ counts balance? → COUNTS_FILE → publish
"""

import os
import sys
import time
from urllib.parse import urlparse

from pyspark.sql import SparkSession
from pyspark.sql import types as T

from keras_sentemb.bulk.corpus_lines import count_lines, numbered_lines, split_lines
from keras_sentemb.bulk.exported_model import ExportedModel
from keras_sentemb.bulk.job_arguments import check_batch_size, input_patterns
from keras_sentemb.bulk.job_counts import JobCounts, write_job_counts
from keras_sentemb.bulk.published_output import is_uri, published_output
from keras_sentemb.spark.embed_dataframe import embed_dataframe
from keras_sentemb.spark.hadoop_filesystem import HadoopFileSystem

LINE_SCHEMA = T.StructType([T.StructField("id", T.StringType(), False), T.StructField("text", T.BinaryType(), False)])


def local_path(spark_path):
    """The path an id names: a local file without Spark's `file:` scheme (as Beam's ids
    write it), any other URI as it is.

    Example:
        >>> local_path("file:/data/corpus/a.txt"), local_path("hdfs://nn/corpus/a.txt")
        ('/data/corpus/a.txt', 'hdfs://nn/corpus/a.txt')
    """
    parsed = urlparse(spark_path)
    return parsed.path if parsed.scheme == "file" else spark_path


def spark_session(master=None, app_name="keras-sentemb embed-corpus"):
    """The active Spark session, or a new one on `master` (default `local[*]`) whose Python
    workers run this interpreter (`PYSPARK_PYTHON`, unless set) without the Spark UI."""
    active = SparkSession.getActiveSession()
    if active is not None and master is None:
        return active
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    builder = SparkSession.builder.appName(app_name).config("spark.ui.showConsoleProgress", "true")
    if master is not None:
        builder = builder.master(master)
    elif "SPARK_HOME" not in os.environ:
        builder = builder.master("local[*]")
    return builder.config("spark.ui.enabled", "false").getOrCreate()


def _lines_of_files(files, ids_in_first_column):
    def lines(path_and_content):
        path, content = path_and_content
        for key, text in numbered_lines(local_path(path), split_lines(content), ids_in_first_column):
            if text is not None:
                yield key, bytearray(text)

    return files.flatMap(lines)


def _counts_of_files(files, ids_in_first_column):
    def counts(path_and_content):
        path, content = path_and_content
        return count_lines(local_path(path), content, ids_in_first_column)

    return files.map(counts).fold((0, 0), lambda a, b: (a[0] + b[0], a[1] + b[1]))


def embed_corpus(
    inputs,
    model_dir,
    output,
    spark=None,
    batch_size=256,
    ids_in_first_column=False,
    with_codes=None,
    overwrite=False,
    partitions=None,
):
    """Embeds every non-blank line of the text files `inputs` (globs, any filesystem Spark
    reads) with the exported model `model_dir` and writes Parquet files of
    `id: string, embedding: list<float>, code: binary` (the Beam job's schema;
    `read_embedding_records(output + "/*.parquet")` reads them) into the folder `output`.

    Ids are `<path>:<line>` as in the Beam job (or the first column with
    `ids_in_first_column`). The job counts lines and blank lines from the files apart from
    the embedding, and vectors and distinct ids from what it wrote; when they do not balance
    it raises `IncompleteJobError` and publishes nothing. The folder appears whole or not
    at all (`bulk.published_output`): a killed job leaves no `output`, a re-run writes the
    rows once.

    `output` is a URI of a filesystem every executor writes (`hdfs://`, `s3a://`, `dbfs:/`,
    `file://` on a shared disk), or a local path, which Spark writes as `file://`: right for
    `local[N]` and for clusters whose nodes share that disk.

    Args:
        spark: a SparkSession (default: the active one, or `local[*]`).
        batch_size: texts per model call (predict_batch_udf's batch size).
        partitions: how many tasks embed (default: the session's default parallelism).
        overwrite: replace an existing `output` (else FileExistsError before any work).

    Returns:
        `{"output", "lines_read", "blank_lines", "vectors_written", "distinct_ids", "seconds"}`.

    Example:
    (Not run as a doctest: it needs PySpark and an exported model.)
        embed_corpus("corpus/*.txt", "serving/minilm", "out/vectors")
    """
    check_batch_size(batch_size)
    spark = spark or spark_session()
    patterns = input_patterns(inputs)
    for pattern in patterns:
        if not HadoopFileSystem(spark, pattern).glob(pattern):
            raise FileNotFoundError(f"no files match {pattern}")
    model = ExportedModel(model_dir, with_codes)  # checks the folder on the driver; loads nothing
    output = os.fspath(output)
    out_fs = HadoopFileSystem(spark, output) if is_uri(output) else None
    start = time.perf_counter()
    with published_output(output, overwrite=overwrite, filesystem=out_fs, inputs=[*patterns, model_dir]) as staging:
        files = spark.sparkContext.binaryFiles(",".join(patterns))
        lines_read, blank_lines = _counts_of_files(files, ids_in_first_column)
        lines = spark.createDataFrame(_lines_of_files(files, ids_in_first_column), LINE_SCHEMA)
        wanted = partitions or spark.sparkContext.defaultParallelism
        if lines.rdd.getNumPartitions() < wanted:
            lines = lines.repartition(wanted)
        embedded = embed_dataframe(lines, "text", model.model_dir, batch_size, model.with_codes).drop("text")
        where = staging if out_fs is not None else "file://" + os.path.abspath(staging)
        embedded.write.mode("overwrite").parquet(where)
        written = spark.read.parquet(where)
        counts = JobCounts(
            lines_read=lines_read,
            blank_lines=blank_lines,
            vectors_written=written.count(),
            distinct_ids=written.select("id").distinct().count(),
        ).check(f"embed_corpus({patterns} → {output})")
        write_job_counts(staging, counts, out_fs)
    return {"output": output, **counts.__dict__, "seconds": time.perf_counter() - start}
