"""Ray Data (a local cluster with 2 CPUs): 20,000 corpus lines → rows equal to `encode`/`hash`,
every line accounted for, a killed job leaves nothing, a re-run writes each row once (one job killed
and rerun answers both: tests/scale_out/corpus.py)."""

import numpy as np
import pyarrow as pa
import pytest
import ray
import ray.cloudpickle
import ray.data

from keras_sentemb.bulk.corpus_lines import count_lines
from keras_sentemb.ray import EmbedBatches, embed_corpus
from tests.fresh_process import run_fresh_python
from tests.scale_out.corpus import (
    ExpectedRows,
    assert_every_line_is_written_once,
    assert_the_killed_job_left_nothing,
    hashed_export,
    rerun_after_kill,
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
    return hashed, model_dir, ExpectedRows(hashed, write_corpus(folder / "corpus")), folder


@pytest.fixture(scope="module")
def rerun(job, tmp_path_factory):
    """The whole job killed while it writes, then run again into the same folder (corpus.rerun_after_kill)."""
    _, model_dir, _, folder = job
    output = tmp_path_factory.mktemp("rerun") / "vectors"
    script = (
        "import ray\n"
        "from keras_sentemb.ray import embed_corpus\n"
        "ray.init(num_cpus=2, include_dashboard=False)\n"
        f"embed_corpus({str(folder / 'corpus' / '*.txt')!r}, {model_dir!r}, {str(output)!r})\n"
    )
    existed, summary, beside = rerun_after_kill(
        script, output, lambda: embed_corpus(str(folder / "corpus" / "*.txt"), model_dir, str(output))
    )
    return existed, summary, beside, output


def test_every_line_becomes_one_row_equal_to_encode_and_the_counts_balance(job, rerun):
    _, model_dir, expected, folder = job
    _, summary, _, output = rerun
    assert_every_line_is_written_once(expected, summary, output)
    with pytest.raises(FileExistsError, match="overwrite"):
        embed_corpus(str(folder / "corpus" / "a.txt"), model_dir, str(output))


def test_a_killed_job_leaves_no_output_and_the_rerun_writes_each_row_once(job, rerun):
    assert_the_killed_job_left_nothing(job[2], rerun)


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
