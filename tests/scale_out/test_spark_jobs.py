"""Spark (PySpark local[2]): 20,000 corpus lines → rows equal to `encode`/`hash`, every line
accounted for, a killed job leaves nothing, a re-run writes each row once (one job killed and rerun
answers both: tests/scale_out/corpus.py)."""

import numpy as np
import pytest

from keras_sentemb.apps.cli import main
from keras_sentemb.spark import embed_corpus, embed_dataframe
from keras_sentemb.spark.corpus_job import spark_session
from tests.scale_out.corpus import (
    ExpectedRows,
    assert_every_line_is_written_once,
    assert_the_killed_job_left_nothing,
    hashed_export,
    rerun_after_kill,
    write_corpus,
)


@pytest.fixture(scope="module")
def spark():
    session = spark_session("local[2]")
    yield session
    session.stop()


@pytest.fixture(scope="module")
def job(tmp_path_factory):
    folder = tmp_path_factory.mktemp("spark")
    hashed, model_dir = hashed_export(folder)
    return hashed, model_dir, ExpectedRows(hashed, write_corpus(folder / "corpus")), folder


@pytest.fixture(scope="module")
def rerun(spark, job, tmp_path_factory):
    """The whole job killed while it writes, then run again into the same folder (corpus.rerun_after_kill)."""
    _, model_dir, _, folder = job
    output = tmp_path_factory.mktemp("rerun") / "vectors"
    script = (
        "from keras_sentemb.spark.corpus_job import embed_corpus, spark_session\n"
        f"embed_corpus({str(folder / 'corpus' / '*.txt')!r}, {model_dir!r}, {str(output)!r}, "
        "spark=spark_session('local[2]'))\n"
    )
    existed, summary, beside = rerun_after_kill(
        script, output, lambda: embed_corpus(str(folder / "corpus" / "*.txt"), model_dir, str(output), spark=spark)
    )
    return existed, summary, beside, output


def test_every_line_becomes_one_row_equal_to_encode_and_the_counts_balance(spark, job, rerun):
    _, model_dir, expected, folder = job
    _, summary, _, output = rerun
    assert_every_line_is_written_once(expected, summary, output)
    with pytest.raises(FileExistsError, match="overwrite"):
        embed_corpus(str(folder / "corpus" / "a.txt"), model_dir, str(output), spark=spark)


def test_a_killed_job_leaves_no_output_and_the_rerun_writes_each_row_once(job, rerun):
    assert_the_killed_job_left_nothing(job[2], rerun)


def test_embed_dataframe_adds_vector_and_code_columns_and_nulls_null_texts(spark, job):
    hashed, model_dir, _, _ = job
    texts = ["the cat sat", None, "caf\u00e9 \U0001f600", ""]
    df = spark.createDataFrame([(i, t) for i, t in enumerate(texts)], "n int, body string")
    rows = sorted(embed_dataframe(df, "body", model_dir, batch_size=3).collect(), key=lambda r: r.n)
    assert rows[1].embedding is None and rows[1].code is None
    kept = [texts[i] for i in (0, 2, 3)]
    np.testing.assert_allclose([rows[i].embedding for i in (0, 2, 3)], hashed.encode(kept), atol=1e-5)
    np.testing.assert_array_equal(
        np.frombuffer(b"".join(rows[i].code for i in (0, 2, 3)), np.uint8).reshape(3, -1), hashed.hash(kept)
    )
    with pytest.raises(ValueError, match="no column 'text'"):
        embed_dataframe(df, "text", model_dir)
    with pytest.raises(ValueError, match="column 'n' is int"):
        embed_dataframe(df, "n", model_dir)


def test_the_cli_runs_the_spark_engine(job, tmp_path, capsys):
    _, model_dir, expected, folder = job
    status = main(
        ["embed-corpus", model_dir, str(folder / "corpus" / "b.txt"), "-o", str(tmp_path / "v"), "--engine", "spark"]
    )
    assert status == 0
    out = capsys.readouterr().out
    b_rows = sum(1 for i in expected.ids if i.startswith(str(folder / "corpus" / "b.txt")))
    assert f"wrote {b_rows} rows" in out and "8000 read" in out
