"""What every bulk embedding engine shares (Beam, Spark, Ray Data): corpus lines and their ids,
the exported model a worker loads once, the counts a job must balance, and output folders that
appear whole or not at all.

    lines read = blank lines skipped + vectors written      (else IncompleteJobError, nothing published)
"""

from keras_sentemb.bulk.arrow_filesystem import ArrowFileSystem
from keras_sentemb.bulk.corpus_lines import count_lines, numbered_lines, split_lines
from keras_sentemb.bulk.exported_model import ExportedModel, load_exported_model
from keras_sentemb.bulk.job_arguments import check_batch_size, input_patterns
from keras_sentemb.bulk.job_counts import (
    COUNTS_FILE,
    IncompleteJobError,
    JobCounts,
    read_job_counts,
    write_job_counts,
)
from keras_sentemb.bulk.published_output import published_output

__all__ = [
    "ArrowFileSystem",
    "COUNTS_FILE",
    "ExportedModel",
    "IncompleteJobError",
    "JobCounts",
    "check_batch_size",
    "count_lines",
    "input_patterns",
    "load_exported_model",
    "numbered_lines",
    "published_output",
    "read_job_counts",
    "split_lines",
    "write_job_counts",
]
