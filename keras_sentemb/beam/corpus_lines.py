"""Reading a text corpus in Beam as (id, text) pairs, one a non-blank line."""

import apache_beam as beam
from apache_beam.io import fileio
from apache_beam.io.filesystems import FileSystems
from apache_beam.metrics import Metrics

from keras_sentemb.bulk.corpus_lines import numbered_lines as bulk_lines
from keras_sentemb.bulk.job_arguments import input_patterns


def numbered_lines(readable_file, ids_in_first_column=False):
    """(id, text bytes) for each non-blank line of one `fileio.ReadableFile`, by the rules
    of `keras_sentemb.bulk.numbered_lines` (ids `<path>:<line>` or the first column, blank
    lines counted and skipped, text kept as bytes), counting sentences and blank lines in
    the pipeline's metrics.
    """
    path = readable_file.metadata.path
    blank = Metrics.counter("keras_sentemb", "blank_lines")
    sentences = Metrics.counter("keras_sentemb", "sentences")
    with readable_file.open() as f:
        for key, text in bulk_lines(path, (line.rstrip(b"\r\n") for line in f), ids_in_first_column):
            if text is None:
                blank.inc()
                continue
            sentences.inc()
            yield key, text


class ReadCorpusLines(beam.PTransform):
    """`patterns` (file globs, any filesystem Beam knows: local, gs://, s3://, hdfs://) →
    a PCollection of (id, text bytes), one per non-blank line (see `numbered_lines`).

    Each file is read by one worker from start to end (so line numbers are exact); shard
    large corpora into many files for parallelism. A pattern that matches no file is a
    FileNotFoundError here, when the pipeline is built, before a runner starts.
    """

    def __init__(self, patterns, ids_in_first_column=False):
        super().__init__()
        self.patterns = input_patterns(patterns)
        for pattern in self.patterns:
            if not FileSystems.match([pattern])[0].metadata_list:
                raise FileNotFoundError(f"no files match {pattern}")
        self.ids_in_first_column = ids_in_first_column

    def expand(self, pbegin):
        return (
            pbegin
            | "Patterns" >> beam.Create(self.patterns)
            | "Match" >> fileio.MatchAll(empty_match_treatment=fileio.EmptyMatchTreatment.DISALLOW)
            | "Open" >> fileio.ReadMatches()
            | "Lines" >> beam.FlatMap(numbered_lines, ids_in_first_column=self.ids_in_first_column)
        )
