"""Ray Data (a local cluster with 2 CPUs): 20,000 corpus lines → rows equal to `encode`/`hash`,
every line accounted for, a killed job leaves nothing, a re-run writes each row once."""

import os

import numpy as np
import pyarrow as pa
import pytest
import ray
import ray.cloudpickle
import ray.data

from keras_sentemb.beam import read_embedding_records
from keras_sentemb.bulk import read_job_counts
from keras_sentemb.bulk.corpus_lines import count_lines
from keras_sentemb.ray import EmbedBatches, embed_corpus
from tests.fresh_process import run_fresh_python
from tests.scale_out.corpus import (
    assert_rows_are_encode_and_hash,
    hashed_export,
    kill_when_staging_appears,
    write_corpus,
)


@pytest.fixture(scope="module", autouse=True)
def cluster():
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    ray.data.DataContext.get_current().enable_progress_bars = False
    yield
    ray.shutdown()


@pytest.fixture(scope="module")
def job(tmp_path_factory):
    folder = tmp_path_factory.mktemp("ray")
    hashed, model_dir = hashed_export(folder)
    return hashed, model_dir, write_corpus(folder / "corpus"), folder


def test_every_line_becomes_one_row_equal_to_encode_and_the_counts_balance(job, tmp_path):
    hashed, model_dir, expected, folder = job
    summary = embed_corpus(str(folder / "corpus" / "*.txt"), model_dir, str(tmp_path / "vectors"))
    assert summary["lines_read"] == 20_000 and summary["blank_lines"] == 20_000 - len(expected)
    assert summary["vectors_written"] == summary["distinct_ids"] == len(expected)
    assert read_job_counts(tmp_path / "vectors").distinct_ids == len(expected)
    ids, vectors, codes = read_embedding_records(str(tmp_path / "vectors" / "*.parquet"))
    assert_rows_are_encode_and_hash(hashed, expected, ids, vectors, codes)
    with pytest.raises(FileExistsError, match="overwrite"):
        embed_corpus(str(folder / "corpus" / "a.txt"), model_dir, str(tmp_path / "vectors"))


def test_a_killed_job_leaves_no_output_and_the_rerun_writes_each_row_once(job, tmp_path):
    hashed, model_dir, expected, folder = job
    output = tmp_path / "vectors"
    script = (
        "import ray\n"
        "from keras_sentemb.ray import embed_corpus\n"
        "ray.init(num_cpus=2, include_dashboard=False)\n"
        f"embed_corpus({str(folder / 'corpus' / '*.txt')!r}, {model_dir!r}, {str(output)!r})\n"
    )
    kill_when_staging_appears(script, output)
    assert not output.exists()
    summary = embed_corpus(str(folder / "corpus" / "*.txt"), model_dir, str(output))
    assert summary["vectors_written"] == summary["distinct_ids"] == len(expected)
    assert os.listdir(tmp_path) == ["vectors"]  # the killed job's staging folder was cleaned away
    ids, vectors, codes = read_embedding_records(str(output / "*.parquet"))
    assert_rows_are_encode_and_hash(hashed, expected, ids, vectors, codes)


def test_embed_batches_is_a_map_batches_class_over_any_text_column(job):
    hashed, model_dir, _, _ = job
    texts = ["the cat sat", "caf\u00e9 \U0001f600", ""]
    rows = (
        ray.data.from_items([{"n": i, "body": t} for i, t in enumerate(texts)])
        .map_batches(EmbedBatches, fn_constructor_args=(model_dir, "body"), batch_size=2, batch_format="pyarrow")
        .take_all()
    )
    rows.sort(key=lambda r: r["n"])
    assert "body" not in rows[0]
    np.testing.assert_allclose([r["embedding"] for r in rows], hashed.encode(texts), atol=1e-5)
    np.testing.assert_array_equal(
        np.frombuffer(b"".join(r["code"] for r in rows), np.uint8).reshape(3, -1), hashed.hash(texts)
    )
    with pytest.raises(ValueError, match="null 'body'"):
        EmbedBatches(model_dir, "body")(pa.table({"body": ["a cat", None]}))


def test_the_counting_tasks_unpickle_without_tensorflow(tmp_path):
    """The job's light tasks carry the line rules by value: a worker that unpickles them imports
    neither keras_sentemb nor TensorFlow (each worker would otherwise spend ~10 s importing them)."""
    (tmp_path / "count_lines.pickle").write_bytes(ray.cloudpickle.dumps(count_lines))
    script = (
        "import json, sys, ray.cloudpickle\n"
        "count_lines = ray.cloudpickle.loads(open(sys.argv[1], 'rb').read())\n"
        "assert count_lines('f.txt', b'a\\n\\n b\\n', False) == (3, 1)\n"
        "print(json.dumps(sorted(m for m in sys.modules if m.split('.')[0] in ('keras_sentemb', 'tensorflow'))))\n"
    )
    assert run_fresh_python(script, tmp_path / "count_lines.pickle", cwd=tmp_path) == []
