"""A bulk job publishes only when lines read = blank lines + vectors written, each id once."""

import pytest

from keras_sentemb.bulk import IncompleteJobError, JobCounts, read_job_counts, write_job_counts


def test_balanced_counts_pass():
    counts = JobCounts(lines_read=10, blank_lines=3, vectors_written=7, distinct_ids=7)
    assert counts.check("job") is counts


@pytest.mark.parametrize(
    "written, distinct, message",
    [
        (6, 6, r"expected 7 vectors, wrote 6 \(1 lost\)"),
        (9, 9, r"expected 7 vectors, wrote 9 \(2 extra\)"),
        (7, 5, r"2 id\(s\) written more than once"),
    ],
)
def test_lost_extra_or_doubled_rows_are_an_error_naming_the_job(written, distinct, message):
    with pytest.raises(IncompleteJobError, match=f"spark job.*{message}.*nothing was published"):
        JobCounts(10, 3, written, distinct).check("spark job")


def test_ids_not_counted_skip_only_the_duplicate_check():
    JobCounts(10, 3, 7).check("beam")
    with pytest.raises(IncompleteJobError, match="1 lost"):
        JobCounts(10, 3, 6).check("beam")


def test_the_counts_file_round_trips(tmp_path):
    counts = JobCounts(4, 1, 3, 3)
    write_job_counts(tmp_path, counts)
    assert read_job_counts(tmp_path) == counts
    with pytest.raises(FileNotFoundError, match="not the output of a finished bulk job"):
        read_job_counts(tmp_path / "elsewhere")
