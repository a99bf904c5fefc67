"""Bulk embedding on Apache Beam: text files → RunInference(SavedModel) → sharded records."""

import contextlib
import os
import shutil
import tempfile
import time

import apache_beam as beam
import tensorflow as tf
from apache_beam.ml.inference.base import KeyedModelHandler, RunInference
from apache_beam.options.pipeline_options import PipelineOptions, StandardOptions
from tqdm.auto import tqdm

from keras_sentemb.beam.corpus_lines import ReadCorpusLines
from keras_sentemb.beam.embedding_records import (
    FORMATS,
    SUFFIXES,
    chunk_results,
    count_records,
    parquet_schema,
    to_parquet_row,
    to_tf_example,
)
from keras_sentemb.beam.saved_model_handler import SavedModelEmbeddingHandler
from keras_sentemb.bulk.job_arguments import check_batch_size
from keras_sentemb.bulk.job_counts import IncompleteJobError, JobCounts
from keras_sentemb.bulk.published_output import is_uri
from keras_sentemb.utils.atomic_files import clean_leftovers_of

# Runners that start here but lose elements, with the reason (Beam 2.77, dask 2026.8).
UNSUPPORTED_RUNNERS = {
    "DaskRunner": (
        "Beam's DaskRunner drops what a DoFn emits in finish_bundle (its apply_dofn_to_bundle "
        "collects a bundle's outputs before calling finish_bundle), which is where BatchElements "
        "(inside RunInference) flushes its last batch and where file sinks close their writers "
        "(a BatchElements + RunInference pipeline returned 9,984 of 20,000 elements; WriteToText "
        "failed with 'write to closed file'). Use the DirectRunner, Dataflow, Flink or Spark through Beam, "
        "or keras_sentemb.spark / keras_sentemb.ray"
    ),
}


class ProgressBar(beam.DoFn):
    """Passes elements through and counts them on a tqdm bar (sentences, rate) in the
    process that runs it: the terminal for the DirectRunner, the worker log elsewhere."""

    def __init__(self, description="embedded"):
        super().__init__()
        self.description = description
        self._bar = None

    def setup(self):

        self._bar = tqdm(desc=self.description, unit=" sentences", unit_scale=True, mininterval=1.0)

    def process(self, element):
        self._bar.update(1)
        yield element

    def teardown(self):
        if self._bar is not None:
            self._bar.close()


class ExplodeChunks(beam.DoFn):
    """(line id, the chunks of a line) → one (`<id>#<k>`, chunk) a chunk, counting the lines
    (`chunked_lines`) and chunks (`chunks`) in the pipeline's metrics (namespace keras_sentemb)."""

    def __init__(self):
        self.lines = beam.metrics.Metrics.counter("keras_sentemb", "chunked_lines")
        self.chunks = beam.metrics.Metrics.counter("keras_sentemb", "chunks")

    def process(self, keyed_result):
        self.lines.inc()
        for chunk in chunk_results(keyed_result):
            self.chunks.inc()
            yield chunk


class EmbedCorpus(beam.PTransform):
    """Text file patterns → embeddings (and packed codes) written as sharded files.

        lines (id, text) ─ RunInference(KeyedModelHandler(SavedModelEmbeddingHandler))
                        ─ rows (id, embedding, code) ─ WriteToParquet | WriteToTFRecord

    Args:
        model_dir: an exported SavedModel version folder (`keras-sentemb export`), on a
            path every worker can read (local for the DirectRunner, gs:// for Dataflow).
        inputs: file pattern(s), one sentence a line (or `id<TAB>text` lines with
            `ids_in_first_column`).
        output_prefix: shards are `<prefix>-SSSSS-of-NNNNN.parquet` (or `.tfrecord`).
        output_format: "parquet" or "tfrecord".
        num_shards: output shard count (0: the runner decides).
        batch_size: the most texts RunInference gives the model at once.
        with_codes: write packed codes (default: when the model has a `hash` signature).
        progress: show a progress bar (sentences embedded, rate) where the pipeline runs.
        chunks: each line is a document cut into windows by the model's `chunks` signature
            (`export_saved_model(..., chunking=Chunking(...))`): one row a chunk, id
            `<line id>#<k>`, with its word-piece span (`start`, `end`); no codes.

    Example:
    (Not run as a doctest: it needs an optional extra (apache-beam or mteb).)
        with beam.Pipeline() as p:
            p | EmbedCorpus("serving/minilm/1", "corpus/*.txt", "out/corpus")
    """

    def __init__(
        self,
        model_dir,
        inputs,
        output_prefix,
        output_format="parquet",
        num_shards=0,
        batch_size=256,
        ids_in_first_column=False,
        with_codes=None,
        progress=False,
        chunks=False,
    ):
        super().__init__()
        if output_format not in FORMATS:
            raise ValueError(f"output_format must be one of {FORMATS}, got {output_format!r}")
        check_batch_size(batch_size)
        if not isinstance(num_shards, int) or num_shards < 0:
            raise ValueError(f"num_shards must be an int ≥ 0, got {num_shards!r}")
        self.read = ReadCorpusLines(inputs, ids_in_first_column)
        self.handler = SavedModelEmbeddingHandler(
            model_dir, with_codes=with_codes, max_batch_size=batch_size, chunks=chunks
        )
        self.chunks = bool(chunks)
        self.output_prefix = output_prefix
        self.output_format = output_format
        self.num_shards = num_shards
        self.progress = progress

    def expand(self, pbegin):
        results = pbegin | "Read" >> self.read | "Embed" >> RunInference(KeyedModelHandler(self.handler))
        if self.progress:
            results = results | "Progress" >> beam.ParDo(ProgressBar())
        if self.chunks:
            results = results | "Chunks" >> beam.ParDo(ExplodeChunks())
        suffix = SUFFIXES[self.output_format]
        if self.output_format == "parquet":
            return (
                results
                | "Rows" >> beam.Map(to_parquet_row)
                | "Write"
                >> beam.io.WriteToParquet(
                    self.output_prefix,
                    parquet_schema(self.handler.with_codes, self.chunks),
                    file_name_suffix=suffix,
                    num_shards=self.num_shards,
                )
            )
        return (
            results
            | "Examples" >> beam.Map(to_tf_example)
            | "Write"
            >> beam.io.WriteToTFRecord(self.output_prefix, file_name_suffix=suffix, num_shards=self.num_shards)
        )


def run_embed_corpus(
    model_dir,
    inputs,
    output_prefix,
    output_format="parquet",
    num_shards=0,
    batch_size=256,
    ids_in_first_column=False,
    with_codes=None,
    pipeline_args=(),
    progress=False,
    overwrite=False,
    chunks=False,
):
    """Builds and runs the `EmbedCorpus` pipeline and waits for it.

    `pipeline_args` are Beam pipeline options as on a command line, e.g.
    `["--runner=DataflowRunner", "--project=P", "--region=R", "--temp_location=gs://B/tmp"]`
    (the DirectRunner when no runner is named).

    Shards of an earlier run under the same prefix are a FileExistsError unless
    `overwrite`; then they are replaced, and those the new run did not rewrite are deleted
    once it has succeeded (a failed run leaves them as they were).

    A local prefix is written through a staging folder beside it, `.<name>.tmp-<pid>-…`, which
    holds the shards and Beam's own temporary files (`beam-temp-…`) until the counts balance; then
    the shards are moved next to the prefix and the folder removed. A run that is killed leaves only
    that folder, and the next run of the same prefix deletes it (its process is gone). On a remote
    file system (gs://, hdfs://) Beam writes the shards in place and keeps its temporary folder
    there if killed, as Beam does.

    The counts must balance: the rows in the shards this run wrote equal the non-blank lines
    read (`sentences` in the pipeline's metrics); else those shards are deleted and
    `IncompleteJobError` raised (a runner that drops elements, as Beam's DaskRunner does, is
    caught here).

    With `chunks` (see `EmbedCorpus`) the chunked lines must equal the non-blank lines read and
    the rows the chunks made.

    Returns `{"files": [...], "sentences": n, "blank_lines": m}` (the counts from the
    pipeline's metrics; `vectors_written` counted in the shards; with `chunks` also `chunks`).

    Raises:
        ValueError: the DaskRunner (see `UNSUPPORTED_RUNNERS`).
        IncompleteJobError: the rows written do not account for the lines read.
    """
    from apache_beam.metrics import MetricsFilter  # optional extra: apache-beam

    options = PipelineOptions(list(pipeline_args))
    runner = str(options.view_as(StandardOptions).runner or "")
    for name, reason in UNSUPPORTED_RUNNERS.items():
        if runner.rsplit(".", 1)[-1] == name:
            raise ValueError(f"--runner={runner} is refused: {reason}")
    output_prefix = os.fspath(output_prefix)
    suffix = SUFFIXES[output_format] if output_format in SUFFIXES else ""
    pattern = f"{output_prefix}-*-of-*{suffix}"
    earlier = tf.io.gfile.glob(pattern)
    if earlier and not overwrite:
        raise FileExistsError(
            f"{len(earlier)} shard(s) of an earlier run match {pattern} (e.g. {earlier[0]}); "
            "pass overwrite=True (--overwrite) to replace them"
        )
    with _staged_prefix(output_prefix) as staged_prefix:
        pipeline = beam.Pipeline(options=options)
        _ = pipeline | EmbedCorpus(
            model_dir,
            inputs,
            staged_prefix,
            output_format,
            num_shards,
            batch_size,
            ids_in_first_column,
            with_codes,
            progress,
            chunks,
        )  # checks the arguments
        started_ns = time.time_ns()
        result = pipeline.run()
        result.wait_until_finish()
        counts = {}
        for name in ("sentences", "blank_lines", "chunked_lines", "chunks"):
            found = result.metrics().query(MetricsFilter().with_namespace("keras_sentemb").with_name(name))
            counts[name] = sum(c.committed or 0 for c in found["counters"])
        staged_pattern = f"{staged_prefix}-*-of-*{suffix}"
        written = [p for p in tf.io.gfile.glob(staged_pattern) if tf.io.gfile.stat(p).mtime_nsec >= started_ns]
        rows = sum(count_records(path) for path in written)
        where = f"embed-corpus {runner or 'DirectRunner'} ({output_prefix})"
        try:
            documents = counts["chunked_lines"] if chunks else rows
            JobCounts(counts["sentences"] + counts["blank_lines"], counts["blank_lines"], documents).check(where)
            if chunks and rows != counts["chunks"]:
                raise IncompleteJobError(f"{where}: {rows} rows written for {counts['chunks']} chunks")
        except IncompleteJobError:
            for path in written:
                tf.io.gfile.remove(path)
            raise
        if staged_prefix != output_prefix:  # move the staged shards next to the prefix
            for path in written:
                os.replace(path, output_prefix + path[len(staged_prefix) :])
    for path in earlier:  # shards of the earlier run that this run did not rewrite
        if tf.io.gfile.exists(path) and tf.io.gfile.stat(path).mtime_nsec < started_ns:
            tf.io.gfile.remove(path)
    if not chunks:
        counts.pop("chunks")
    counts.pop("chunked_lines")
    return {"files": sorted(tf.io.gfile.glob(pattern)), **counts, "vectors_written": rows}


@contextlib.contextmanager
def _staged_prefix(output_prefix):
    """Yields the prefix the pipeline writes: for a local prefix, the same name inside a fresh staging
    folder `.<name>.tmp-<pid>-…` beside it (deleted when the block ends, whatever happens; what a killed
    run left is deleted first); a remote prefix itself."""
    if is_uri(output_prefix):
        yield output_prefix
        return
    folder, name = os.path.split(os.path.abspath(output_prefix))
    if os.path.isdir(output_prefix) or output_prefix.endswith(os.sep):
        raise ValueError(
            f"output prefix {output_prefix!r} names a folder; the shards are files named after the prefix: "
            f"give one such as {os.path.join(output_prefix, 'corpus')}"
        )
    os.makedirs(folder, exist_ok=True)
    clean_leftovers_of(os.path.join(folder, name))  # staging folders of killed runs
    staging = tempfile.mkdtemp(prefix=f".{name}.tmp-{os.getpid()}-", dir=folder)
    try:
        yield os.path.join(staging, name)
    finally:
        shutil.rmtree(staging, ignore_errors=True)
