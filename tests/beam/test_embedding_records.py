"""embed-corpus rows: Parquet and TFRecord shards hold id, embedding and code, and read
back as written, shard by shard."""

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
import tensorflow as tf
from apache_beam.ml.inference.base import PredictionResult

from keras_sentemb.beam.embedding_records import (
    parquet_schema,
    read_embedding_records,
    to_parquet_row,
    to_tf_example,
)
from keras_sentemb.bulk.job_counts import JobCounts, write_job_counts

RESULTS = [
    (
        "a.txt:1",
        PredictionResult("x", {"embedding": np.array([0.5, -1.0], np.float32), "code": np.array([7], np.uint8)}),
    ),
    (
        "a.txt:3",
        PredictionResult("y", {"embedding": np.array([2.0, 0.0], np.float32), "code": np.array([255], np.uint8)}),
    ),
]


def test_parquet_and_tfrecord_shards_read_back_as_written(tmp_path):
    table = pa.Table.from_pylist([to_parquet_row(r) for r in RESULTS], schema=parquet_schema(with_codes=True))
    pq.write_table(table, tmp_path / "rows-0.parquet")
    with tf.io.TFRecordWriter(str(tmp_path / "rows-1.tfrecord")) as writer:
        for result in RESULTS:
            writer.write(to_tf_example(result))
    for pattern in ("rows-0.parquet", "rows-1.tfrecord"):
        ids, vectors, codes = read_embedding_records(str(tmp_path / pattern), verify=False)
        assert ids == ["a.txt:1", "a.txt:3"]
        np.testing.assert_array_equal(vectors, [[0.5, -1.0], [2.0, 0.0]])
        assert codes.tolist() == [[7], [255]]


def test_rows_without_codes_give_none(tmp_path):
    plain = [(key, PredictionResult(r.example, {"embedding": r.inference["embedding"]})) for key, r in RESULTS]
    table = pa.Table.from_pylist([to_parquet_row(r) for r in plain], schema=parquet_schema(with_codes=False))
    pq.write_table(table, tmp_path / "rows.parquet")
    assert read_embedding_records(str(tmp_path / "*.parquet"), verify=False)[2] is None


def test_missing_and_unknown_shards_are_clear_errors(tmp_path):
    with pytest.raises(FileNotFoundError, match="no files match"):
        read_embedding_records(str(tmp_path / "*.parquet"))
    (tmp_path / "rows.csv").write_text("id\n")
    with pytest.raises(ValueError, match="not a .parquet or .tfrecord shard"):
        read_embedding_records(str(tmp_path / "rows.csv"), verify=False)


def write_rows(path, rows=RESULTS):
    table = pa.Table.from_pylist([to_parquet_row(r) for r in rows], schema=parquet_schema(with_codes=True))
    pq.write_table(table, path)


def test_only_a_whole_output_is_read(tmp_path):
    """Beam's shards all of them; a Spark or Ray folder only with its counts, and as many rows as they record."""
    write_rows(tmp_path / "corpus-00000-of-00002.parquet")
    with pytest.raises(ValueError, match=r"shard\(s\) \[1\] of .*corpus-\*-of-00002\.parquet are missing"):
        read_embedding_records(str(tmp_path / "corpus-*.parquet"))
    write_rows(tmp_path / "corpus-00001-of-00002.parquet")
    assert len(read_embedding_records(str(tmp_path / "corpus-*.parquet"))[0]) == 4
    folder = tmp_path / "vectors"
    folder.mkdir()
    write_rows(folder / "part-0.parquet")
    with pytest.raises(ValueError, match="no _KERAS_SENTEMB_COUNTS.json beside it"):
        read_embedding_records(str(folder / "*.parquet"))
    write_job_counts(folder, JobCounts(lines_read=3, blank_lines=0, vectors_written=3))
    with pytest.raises(ValueError, match=r"2 rows read, but .*records 3 vectors written"):
        read_embedding_records(str(folder / "*.parquet"))
    write_job_counts(folder, JobCounts(lines_read=2, blank_lines=0, vectors_written=2))
    assert read_embedding_records(str(folder / "*.parquet"))[0] == ["a.txt:1", "a.txt:3"]
