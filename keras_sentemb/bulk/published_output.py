"""Output folders of bulk jobs that appear whole or not at all.

A job writes into a staging folder beside its target, checks its counts there, writes
`COUNTS_FILE` last, and only then publishes the staging folder at the target:

- a local path: `utils.atomic_files.atomic_directory` (one `renameat2`, a replacement
  swapped in one step, leftovers of killed jobs cleaned by the next run);
- a URI (`hdfs://`, `s3a://`, `gs://`, `file://`, …): through `filesystem`, an object with
  `exists`, `rename`, `delete` and `write_text` (Spark's Hadoop FileSystem, or pyarrow's
  for Ray): the staging folder `<target>.tmp-<random>` is renamed to the target. Rename is
  atomic on HDFS and local disks; on object stores it is a copy, so readers there should
  wait for `COUNTS_FILE`, which is in the folder only once it is whole.

A killed job leaves no target (or the previous one, untouched); a re-run writes the rows once.
"""

import contextlib
import json
import os
import uuid
from urllib.parse import urlparse

from keras_sentemb.utils.output_targets import MARKER_FILE, replaced_folder

BULK_OUTPUT_KIND = "bulk-output"


def is_uri(path):
    """True for `scheme:…` paths (`hdfs://nn/out`, `dbfs:/out`; not a Windows drive letter).

    Example:
        >>> is_uri("hdfs://nn/out"), is_uri("dbfs:/out"), is_uri("/tmp/out"), is_uri("out"), is_uri("C:/out")
        (True, True, False, False, False)
    """
    return len(urlparse(os.fspath(path)).scheme) > 1


@contextlib.contextmanager
def published_output(target, overwrite=False, filesystem=None, inputs=()):
    """Yields a staging folder path; publishes it at `target` when the block succeeds, and
    removes it when the block fails.

    Raises `FileExistsError` when `target` exists and not `overwrite` (before any work), and
    `ValueError` when it exists but is not an output folder keras-sentemb wrote (its marker, see
    `utils.output_targets`), or (a local path) is a place never replaced: the current directory,
    the home folder, one of `inputs` or a folder holding them.

    Example:
    (Not run as a doctest: it needs a Spark session or a corpus around it.)
        with published_output("out/vectors") as staging:
            write_parquet_into(staging)
    """
    target = os.fspath(target)
    if not is_uri(target):
        with replaced_folder(target, BULK_OUTPUT_KIND, overwrite, inputs) as staging:
            yield staging
        return
    if filesystem is None:
        raise ValueError(f"{target} is a URI: give the filesystem that writes it")
    target = target.rstrip("/")
    if filesystem.exists(target):
        if not overwrite:
            raise FileExistsError(f"{target} exists; pass overwrite=True (--overwrite) to replace it")
        if not filesystem.exists(f"{target}/{MARKER_FILE}"):
            raise ValueError(
                f"{target}: holds no keras-sentemb marker ({MARKER_FILE}): only an output folder keras-sentemb "
                "wrote is replaced; remove it yourself or choose a new path"
            )
    token = uuid.uuid4().hex[:12]
    staging = f"{target}.tmp-{token}"
    try:
        yield staging
        filesystem.write_text(f"{staging}/{MARKER_FILE}", json.dumps({"kind": BULK_OUTPUT_KIND}))
        if filesystem.exists(target):
            if not overwrite:
                raise FileExistsError(
                    f"{target} was published by another job while this one ran; this result was discarded"
                )
            old = f"{target}.old-{token}"
            filesystem.rename(target, old)
            try:
                filesystem.rename(staging, target)
            except BaseException:
                filesystem.rename(old, target)
                raise
            filesystem.delete(old)
        else:
            filesystem.rename(staging, target)
    except BaseException:
        if filesystem.exists(staging):
            filesystem.delete(staging)
        raise
