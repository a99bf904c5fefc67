"""Text files → Parquet of (id, embedding, code) on Ray Data, every line accounted for.

files ─ count lines / blank lines ──────────────────────────────────┐
files ─ numbered non-blank lines ─ map_batches(EmbedBatches actors) ─ Parquet (staging)
                                                                    └ counts balance? → COUNTS_FILE → publish
"""

import os
import time

import pyarrow.dataset
import ray
import ray.cloudpickle
import ray.data
import tensorflow as tf

from keras_sentemb.bulk import corpus_lines
from keras_sentemb.bulk.arrow_filesystem import ArrowFileSystem
from keras_sentemb.bulk.corpus_lines import count_lines, numbered_lines, split_lines
from keras_sentemb.bulk.exported_model import ExportedModel
from keras_sentemb.bulk.job_arguments import check_batch_size, input_patterns
from keras_sentemb.bulk.job_counts import JobCounts, write_job_counts
from keras_sentemb.bulk.published_output import is_uri, published_output
from keras_sentemb.ray.embed_batches import EmbedBatches

# CPUs each reading, splitting and writing task reserves: the model actors leave this much of
# the cluster free, so that those tasks never wait for CPUs the actors hold.
LIGHT_TASK_CPUS = 0.25

# The counting and splitting tasks carry the line rules' code with them (standard library only):
# pickled by reference, each of their worker processes imported keras_sentemb, and so TensorFlow,
# to unpickle them — 10 s a worker on 2 cores, and Ray starts several per stage. A 20,000-line job
# on a 2-CPU local cluster: counting 22.9 → 7.1 s, splitting 16.8 → 4.7 s (AMD EPYC, avx2).
ray.cloudpickle.register_pickle_by_value(corpus_lines)


def _expand(patterns):
    files = []
    for pattern in patterns:
        found = sorted(tf.io.gfile.glob(pattern))
        if not found:
            raise FileNotFoundError(f"no files match {pattern}")
        files += found
    return sorted(set(files))


def embed_corpus(
    inputs,
    model_dir,
    output,
    batch_size=256,
    ids_in_first_column=False,
    with_codes=None,
    overwrite=False,
    concurrency=None,
    num_cpus_per_actor=None,
):
    """Embeds every non-blank line of the text files `inputs` (globs) with the exported
    model `model_dir` on Ray Data and writes Parquet files of
    `id: string, embedding: list<float>, code: binary` (the Beam job's schema) into the
    folder `output`. Runs on the Ray cluster this process is connected to (`ray.init()`
    first for a remote one; else a local one is started).

    Ids, counts and publishing are the Spark job's (`keras_sentemb.spark.embed_corpus`):
    lines and blank lines counted from the files, vectors and distinct ids from the
    written files, `IncompleteJobError` and nothing published when they disagree; the
    folder appears whole or not at all, a re-run writes the rows once.

    Args:
        concurrency: how many model actors (default: one per CPU of the cluster).
        num_cpus_per_actor: CPUs Ray reserves for each actor (default: the cluster's CPUs
            less a quarter, shared by the actors; the quarter is for the reading and writing
            tasks, which would otherwise wait for CPUs the actors hold).

    Returns:
        `{"output", "lines_read", "blank_lines", "vectors_written", "distinct_ids", "seconds"}`.

    Example:
    (Not run as a doctest: it needs Ray and an exported model.)
        embed_corpus("corpus/*.txt", "serving/minilm", "out/vectors")
    """
    patterns = input_patterns(inputs)
    check_batch_size(batch_size)
    paths = _expand(patterns)
    model = ExportedModel(model_dir, with_codes)  # checks the folder on the driver; loads nothing
    output = os.fspath(output)
    out_fs = ArrowFileSystem(output) if is_uri(output) else None
    if not ray.is_initialized():
        ray.init(include_dashboard=False, log_to_driver=False)
    cpus = ray.cluster_resources().get("CPU", 1)
    concurrency = concurrency or max(1, int(cpus))
    num_cpus_per_actor = num_cpus_per_actor or max(cpus - LIGHT_TASK_CPUS, LIGHT_TASK_CPUS) / concurrency
    start = time.perf_counter()
    with published_output(output, overwrite=overwrite, filesystem=out_fs, inputs=[*patterns, model_dir]) as staging:
        light = {"num_cpus": LIGHT_TASK_CPUS}
        files = ray.data.read_binary_files(paths, include_paths=True, ray_remote_args=light)

        def counts_of(row):
            lines, blank = count_lines(row["path"], row["bytes"], ids_in_first_column)
            return {"lines": lines, "blank": blank}

        def lines_of(row):
            return [
                {"id": key, "text": text}
                for key, text in numbered_lines(row["path"], split_lines(row["bytes"]), ids_in_first_column)
                if text is not None
            ]

        # One small row a file, summed here: Ray Data's `sum` is a hash shuffle with aggregator actors
        # (9.7 s of a 20,000-line job on a 2-CPU cluster, whatever the corpus size).
        counted = files.map(counts_of, **light).take_all()
        lines_read, blank_lines = (sum(int(row[c]) for row in counted) for c in ("lines", "blank"))
        # Blocks of a few batches each, so that every actor gets work (a file is one block);
        # materialised before the actors start: split tasks queued beside starting actors
        # never got a worker on a 2-CPU cluster (Ray 2.60).
        blocks = max(concurrency, -(-(lines_read - blank_lines) // (4 * batch_size)))
        lines = files.flat_map(lines_of, **light).repartition(blocks).materialize()
        vectors = lines.map_batches(
            EmbedBatches,
            fn_constructor_args=(model.model_dir, "text", model.with_codes),
            batch_size=batch_size,
            batch_format="pyarrow",
            compute=ray.data.ActorPoolStrategy(size=concurrency),  # Ray 2.60 deprecates concurrency=
            num_cpus=num_cpus_per_actor,
        )
        vectors.write_parquet(staging if out_fs is not None else os.path.abspath(staging), ray_remote_args=light)
        written = pyarrow.dataset.dataset(
            staging if out_fs is None else ArrowFileSystem.path_of(staging),
            filesystem=None if out_fs is None else out_fs.arrow,
            format="parquet",
        ).to_table(columns=["id"])
        counts = JobCounts(
            lines_read=lines_read,
            blank_lines=blank_lines,
            vectors_written=written.num_rows,
            distinct_ids=len(written.column("id").unique()),
        ).check(f"embed_corpus({patterns} → {output})")
        write_job_counts(staging, counts, out_fs)
    return {"output": output, **counts.__dict__, "seconds": time.perf_counter() - start}
