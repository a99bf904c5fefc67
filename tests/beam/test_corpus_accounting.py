"""The Beam job checks that the rows it wrote account for every line, and refuses the DaskRunner."""

import glob

import pytest

import keras_sentemb.beam.saved_model_handler as handler_module
from keras_sentemb.beam import run_embed_corpus
from keras_sentemb.bulk import IncompleteJobError
from keras_sentemb.export import export_saved_model
from tests.conftest import make_tiny_encoder


@pytest.fixture(scope="module")
def model_dir(tmp_path_factory):
    return export_saved_model(make_tiny_encoder(seed=5), tmp_path_factory.mktemp("served") / "tiny", version=1)


@pytest.fixture()
def corpus(tmp_path):
    path = tmp_path / "corpus.txt"
    path.write_text("\n".join(["a cat", "", "a dog", "  ", "the mat", "a cat"]) + "\n", encoding="utf-8")
    return path


def test_the_summary_counts_the_rows_in_the_shards(model_dir, corpus, tmp_path):
    summary = run_embed_corpus(model_dir, str(corpus), str(tmp_path / "out" / "v"), batch_size=2)
    assert (summary["sentences"], summary["blank_lines"], summary["vectors_written"]) == (4, 2, 4)


def test_a_runner_that_loses_rows_fails_loudly_and_keeps_no_shard(model_dir, corpus, tmp_path, monkeypatch):
    real = handler_module.embed_texts

    def drops_the_last_of_each_batch(model, batch, *args, **kwargs):
        results = list(real(model, batch, *args, **kwargs))
        yield from results[:-1]

    monkeypatch.setattr(handler_module, "embed_texts", drops_the_last_of_each_batch)
    with pytest.raises(
        IncompleteJobError,
        match=r"read 6 lines, 2 blank: expected 4 vectors, wrote [0-3] \([1-4] lost\).*nothing was published",
    ):
        run_embed_corpus(model_dir, str(corpus), str(tmp_path / "out" / "v"), batch_size=2)
    assert glob.glob(str(tmp_path / "out" / "*")) == []


@pytest.mark.parametrize("runner", ["DaskRunner", "apache_beam.runners.dask.dask_runner.DaskRunner"])
def test_the_dask_runner_is_refused_with_its_reason(model_dir, corpus, tmp_path, runner):
    with pytest.raises(ValueError, match="DaskRunner is refused: .*finish_bundle.*BatchElements"):
        run_embed_corpus(model_dir, str(corpus), str(tmp_path / "v"), pipeline_args=[f"--runner={runner}"])
