"""The rows `embed-corpus` writes (id, embedding, packed code) as Parquet or TFRecord, and
reading them back."""

import json
import re

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import tensorflow as tf

from keras_sentemb.bulk.job_counts import COUNTS_FILE

FORMATS = ("parquet", "tfrecord")
SUFFIXES = {"parquet": ".parquet", "tfrecord": ".tfrecord"}


def parquet_schema(with_codes, chunks=False):
    """id: string, embedding: list<float32>, code: binary (packed bits, MSB first); for chunked
    documents `start`, `end`: int64 (the chunk's word-piece span in its line; its id is
    `<line id>#<chunk number>`)."""

    fields = [("id", pa.string()), ("embedding", pa.list_(pa.float32()))]
    if with_codes:
        fields.append(("code", pa.binary()))
    if chunks:
        fields += [("start", pa.int64()), ("end", pa.int64())]
    return pa.schema(fields)


def chunk_results(keyed_result):
    """(line id, PredictionResult of a chunked line) → one (`<id>#<k>`, PredictionResult) a chunk."""
    key, result = keyed_result
    inference = result.inference
    for k, vector in enumerate(inference["embedding"]):
        chunk = {"embedding": vector, "start": int(inference["start"][k]), "end": int(inference["end"][k])}
        yield f"{key}#{k}", type(result)(result.example, chunk, result.model_id)


def to_parquet_row(keyed_result):
    """(id, PredictionResult) → a dict row of `parquet_schema`."""
    key, result = keyed_result
    row = {"id": key, "embedding": result.inference["embedding"].tolist()}
    if "code" in result.inference:
        row["code"] = result.inference["code"].tobytes()
    if "start" in result.inference:
        row["start"], row["end"] = result.inference["start"], result.inference["end"]
    return row


def to_tf_example(keyed_result):
    """(id, PredictionResult) → a serialized `tf.train.Example` with features `id`
    (bytes), `embedding` (float list) and, for hashed models, `code` (bytes)."""

    key, result = keyed_result
    feature = {
        "id": tf.train.Feature(bytes_list=tf.train.BytesList(value=[key.encode("utf-8")])),
        "embedding": tf.train.Feature(float_list=tf.train.FloatList(value=result.inference["embedding"])),
    }
    if "code" in result.inference:
        feature["code"] = tf.train.Feature(bytes_list=tf.train.BytesList(value=[result.inference["code"].tobytes()]))
    if "start" in result.inference:
        for name in ("start", "end"):
            feature[name] = tf.train.Feature(int64_list=tf.train.Int64List(value=[result.inference[name]]))
    return tf.train.Example(features=tf.train.Features(feature=feature)).SerializeToString()


def count_records(path):
    """Rows in one shard: from the Parquet footer, or by reading a TFRecord file through."""
    if path.endswith(SUFFIXES["parquet"]):
        with tf.io.gfile.GFile(path, "rb") as f:  # any filesystem TF knows; the footer is at the end
            return pq.ParquetFile(pa.BufferReader(f.read())).metadata.num_rows
    return sum(1 for _ in tf.data.TFRecordDataset(path))


def read_embedding_records(pattern, verify=True):
    """Reads the shards matching `pattern` (Parquet or TFRecord, told by the suffix).

    Returns `(ids, embeddings, codes)`: a list of str, float32 [N, d], and uint8
    [N, bits/8] or None, in shard order then row order.

    With `verify` (default) only a whole output is read: Beam's shards `PREFIX-SSSSS-of-NNNNN` all N
    of them, and a Spark or Ray output folder (`--engine spark|ray`) only with its
    `_KERAS_SENTEMB_COUNTS.json`, the rows read equal to the vectors it records (a folder without it is a
    job's unfinished or partly copied output). `verify=False` reads any files of the schema.

    (Not run as a doctest: it reads files of the benchmark data folder (docs/data.md).)
        ids, vectors, codes = read_embedding_records("out/corpus-*.parquet")
    """

    paths = sorted(tf.io.gfile.glob(pattern))
    if not paths:
        raise FileNotFoundError(f"no files match {pattern}")
    if verify:
        _check_whole_output(pattern, paths)
    ids, vectors, codes = [], [], []
    for path in paths:
        if path.endswith(SUFFIXES["parquet"]):
            with tf.io.gfile.GFile(path, "rb") as f:  # any filesystem TF knows (gs://, ...)
                table = pq.read_table(pa.BufferReader(f.read()))
            ids += table.column("id").to_pylist()
            vectors += table.column("embedding").to_pylist()
            if "code" in table.column_names:
                codes += table.column("code").to_pylist()
        elif path.endswith(SUFFIXES["tfrecord"]):
            for record in tf.data.TFRecordDataset(path).as_numpy_iterator():
                example = tf.train.Example.FromString(record)
                feature = example.features.feature
                ids.append(feature["id"].bytes_list.value[0].decode("utf-8"))
                vectors.append(list(feature["embedding"].float_list.value))
                if "code" in feature:
                    codes.append(feature["code"].bytes_list.value[0])
        else:
            raise ValueError(f"{path}: not a .parquet or .tfrecord shard")
    embeddings = np.asarray(vectors, np.float32)
    if codes and len(codes) != len(ids):
        raise ValueError(f"{pattern}: {len(codes)} codes for {len(ids)} rows (mixed shards?)")
    packed = np.frombuffer(b"".join(codes), np.uint8).reshape(len(codes), -1) if codes else None
    if verify:
        _check_recorded_counts(pattern, paths, ids)
    return ids, embeddings, packed


BEAM_SHARD = re.compile(r"^(?P<prefix>.+)-(?P<index>\d{5,})-of-(?P<count>\d{5,})(?P<suffix>\.[a-z]+)$")


def _check_whole_output(pattern, paths):
    """Beam shard sets complete; every other file inside a folder that records its counts."""
    shard_sets = {}
    for path in paths:
        match = BEAM_SHARD.match(path)
        if match:
            key = (match["prefix"], match["count"], match["suffix"])
            shard_sets.setdefault(key, set()).add(int(match["index"]))
        elif not tf.io.gfile.exists(f"{path.rsplit('/', 1)[0]}/{COUNTS_FILE}"):
            raise ValueError(
                f"{path}: neither one of Beam's shards (PREFIX-SSSSS-of-NNNNN) nor in a Spark or Ray output folder "
                f"(no {COUNTS_FILE} beside it: an unfinished or partly copied job); read_embedding_records(..., "
                "verify=False) reads it anyway"
            )
    for (prefix, count, suffix), indexes in shard_sets.items():
        missing = sorted(set(range(int(count))) - indexes)
        if missing:
            raise ValueError(
                f"{pattern}: shard(s) {missing[:5]} of {prefix}-*-of-{count}{suffix} are missing: not a whole output"
            )


def _check_recorded_counts(pattern, paths, ids):
    """Where every file read lies in one Spark or Ray output folder, its rows must be the vectors it records."""
    folders = {path.rsplit("/", 1)[0] for path in paths}
    if len(folders) == 1 and not any(BEAM_SHARD.match(path) for path in paths):
        (folder,) = folders
        with tf.io.gfile.GFile(f"{folder}/{COUNTS_FILE}") as f:
            recorded = json.loads(f.read()).get("vectors_written")
        if recorded != len(ids):
            raise ValueError(
                f"{pattern}: {len(ids)} rows read, but {folder}/{COUNTS_FILE} records {recorded} vectors written "
                "(files missing or added)"
            )
