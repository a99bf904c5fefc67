"""`keras-sentemb embed-corpus --engine spark|ray` refuses what only Beam understands, before it starts anything."""

import pytest

from keras_sentemb.apps.cli import main
from keras_sentemb.export import export_saved_model
from tests.conftest import make_tiny_encoder


@pytest.mark.parametrize(
    "extra, message",
    [
        (["--format", "tfrecord"], "writes Parquet files the engine shards"),
        (["--shards", "4"], "writes Parquet files the engine shards"),
        (["--runner=DataflowRunner"], "takes no Beam pipeline options"),
    ],
)
@pytest.mark.parametrize("engine", ["spark", "ray"])
def test_beam_only_options_are_refused_with_other_engines(engine, extra, message, tmp_path, capsys):
    status = main(["embed-corpus", str(tmp_path), "c.txt", "-o", str(tmp_path / "v"), "--engine", engine, *extra])
    assert status == 2
    assert message in capsys.readouterr().err


def test_the_dask_runner_is_refused_by_the_beam_engine(tmp_path, capsys):
    model_dir = export_saved_model(make_tiny_encoder(), tmp_path / "m", version=1)
    (tmp_path / "c.txt").write_text("a cat\n", encoding="utf-8")
    status = main(
        ["embed-corpus", model_dir, str(tmp_path / "c.txt"), "-o", str(tmp_path / "v"), "--runner=DaskRunner"]
    )
    assert status == 2
    assert "DaskRunner is refused" in capsys.readouterr().err
