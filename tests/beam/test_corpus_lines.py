"""Corpus lines in Beam: (path:line, text bytes) for every non-blank line, or the id of an
`id<TAB>text` line; a pattern matching nothing fails when the pipeline is built."""

import apache_beam as beam
import pytest
from apache_beam.io import fileio
from apache_beam.testing.test_pipeline import TestPipeline as BeamTestPipeline
from apache_beam.testing.util import assert_that, equal_to

from keras_sentemb.beam.corpus_lines import ReadCorpusLines, numbered_lines


def _readable(path):
    metadata = beam.io.filesystems.FileSystems.match([str(path)])[0].metadata_list[0]
    return fileio.ReadableFile(metadata)


def test_ids_are_path_and_line_number_counting_blank_lines(tmp_path):
    path = tmp_path / "a.txt"
    path.write_bytes(b"first\r\n\n   \nbad \xff byte\n")
    assert list(numbered_lines(_readable(path))) == [(f"{path}:1", b"first"), (f"{path}:4", b"bad \xff byte")]


def test_ids_can_come_from_the_first_column(tmp_path):
    path = tmp_path / "a.tsv"
    path.write_bytes(b"q1\tthe cat\nq2\t\nq3\ta dog\n")
    assert list(numbered_lines(_readable(path), ids_in_first_column=True)) == [("q1", b"the cat"), ("q3", b"a dog")]
    path.write_bytes(b"no tab here\n")
    with pytest.raises(ValueError, match=r"a\.tsv:1: expected `id<TAB>text`"):
        list(numbered_lines(_readable(path), ids_in_first_column=True))


def test_the_transform_reads_every_matching_file(tmp_path):
    (tmp_path / "a.txt").write_text("one\ntwo\n")
    (tmp_path / "b.txt").write_text("\nthree\n")
    with BeamTestPipeline() as pipeline:
        lines = pipeline | ReadCorpusLines(str(tmp_path / "*.txt"))
        assert_that(
            lines,
            equal_to(
                [(f"{tmp_path}/a.txt:1", b"one"), (f"{tmp_path}/a.txt:2", b"two"), (f"{tmp_path}/b.txt:2", b"three")]
            ),
        )


def test_patterns_that_match_nothing_fail_at_construction(tmp_path):
    with pytest.raises(FileNotFoundError, match="no files match"):
        ReadCorpusLines(str(tmp_path / "*.txt"))
    with pytest.raises(ValueError, match="at least one"):
        ReadCorpusLines([])
