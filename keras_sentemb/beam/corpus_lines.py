"""Reading a text corpus in Beam as (id, text) pairs, one a non-blank line."""

import apache_beam as beam
from apache_beam.io import fileio
from apache_beam.io.filesystems import FileSystems
from apache_beam.metrics import Metrics


def numbered_lines(readable_file, ids_in_first_column=False):
    """(id, text bytes) for each non-blank line of one `fileio.ReadableFile`.

    The id is `<path>:<line number>` (1-based, counting blank lines too, so it points at
    the line in the file), or with `ids_in_first_column` the text before the first tab of
    an `id<TAB>text` line. Text stays bytes: invalid UTF-8 reaches the model, which
    replaces it, instead of failing the read. A line without a tab in a
    `ids_in_first_column` file is a ValueError naming `path:line`.
    """
    path = readable_file.metadata.path
    blank = Metrics.counter("keras_sentemb", "blank_lines")
    sentences = Metrics.counter("keras_sentemb", "sentences")
    with readable_file.open() as f:
        for number, line in enumerate(f, start=1):
            line = line.rstrip(b"\r\n")
            if ids_in_first_column:
                key, tab, line = line.partition(b"\t")
                if not tab or not key:
                    raise ValueError(f"{path}:{number}: expected `id<TAB>text`, got {line[:80]!r}")
                key = key.decode("utf-8", errors="replace")
            else:
                key = f"{path}:{number}"
            if not line.strip():
                blank.inc()
                continue
            sentences.inc()
            yield key, line


class ReadCorpusLines(beam.PTransform):
    """`patterns` (file globs, any filesystem Beam knows: local, gs://, s3://, hdfs://) →
    a PCollection of (id, text bytes), one per non-blank line (see `numbered_lines`).

    Each file is read by one worker from start to end (so line numbers are exact); shard
    large corpora into many files for parallelism. A pattern that matches no file is a
    FileNotFoundError here, when the pipeline is built, before a runner starts.
    """

    def __init__(self, patterns, ids_in_first_column=False):
        super().__init__()
        self.patterns = [patterns] if isinstance(patterns, str) else list(patterns)
        if not self.patterns:
            raise ValueError("give at least one input file pattern")
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
