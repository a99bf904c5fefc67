"""The counts a bulk job must balance before its output is published.

    lines read = blank lines skipped + vectors written,   and every id written once

`lines read` and `blank lines` are counted from the input files apart from the embedding
pipeline; `vectors written` and the distinct ids are counted from the files the job wrote.
A runner that drops a batch, a retried task that writes a shard twice, a sink that leaves a
file out: each breaks the balance, and the job raises `IncompleteJobError` instead of
publishing a result with rows missing or doubled.
"""

import dataclasses
import json
import os

COUNTS_FILE = "_KERAS_SENTEMB_COUNTS.json"


class IncompleteJobError(RuntimeError):
    """A bulk job's output does not account for its input (rows lost or written twice)."""


@dataclasses.dataclass(frozen=True)
class JobCounts:
    """What a bulk job read and wrote.

    Example:
        >>> JobCounts(lines_read=5, blank_lines=1, vectors_written=4, distinct_ids=4).check("job")
        JobCounts(lines_read=5, blank_lines=1, vectors_written=4, distinct_ids=4)
        >>> JobCounts(5, 1, 3, 3).check("job")
        Traceback (most recent call last):
        ...
        keras_sentemb.bulk.job_counts.IncompleteJobError: job: read 5 lines, 1 blank: expected 4 vectors, wrote 3 (1 lost); nothing was published
    """

    lines_read: int
    blank_lines: int
    vectors_written: int
    distinct_ids: int | None = None  # None: not counted (the check of duplicates is skipped)

    def check(self, where):
        """Returns self when the counts balance; else raises `IncompleteJobError` naming
        `where` (the job) and the difference."""
        expected = self.lines_read - self.blank_lines
        problems = []
        if self.vectors_written != expected:
            gap = expected - self.vectors_written
            what = f"{gap} lost" if gap > 0 else f"{-gap} extra"
            problems.append(
                f"read {self.lines_read} lines, {self.blank_lines} blank: expected {expected} vectors, "
                f"wrote {self.vectors_written} ({what})"
            )
        if self.distinct_ids is not None and self.distinct_ids != self.vectors_written:
            problems.append(f"{self.vectors_written - self.distinct_ids} id(s) written more than once")
        if problems:
            raise IncompleteJobError(f"{where}: {'; '.join(problems)}; nothing was published")
        return self

    def to_json(self):
        return json.dumps(dataclasses.asdict(self), indent=1) + "\n"


def write_job_counts(folder, counts, filesystem=None):
    """Writes `counts` as `folder/COUNTS_FILE`: the last file of a finished job's output
    (`filesystem`: the URI filesystem of `bulk.published_output`; None for a local path)."""
    path = f"{os.fspath(folder).rstrip('/')}/{COUNTS_FILE}"
    if filesystem is None:
        with open(path, "w", encoding="utf-8") as f:
            f.write(counts.to_json())
    else:
        filesystem.write_text(path, counts.to_json())


def read_job_counts(folder):
    """The `JobCounts` a published output folder (local path) records in `COUNTS_FILE`;
    FileNotFoundError when it has none (not a finished job's output)."""
    path = os.path.join(os.fspath(folder), COUNTS_FILE)
    if not os.path.isfile(path):
        raise FileNotFoundError(f"{path} is missing: {folder} is not the output of a finished bulk job")
    with open(path, encoding="utf-8") as f:
        return JobCounts(**json.load(f))
