"""A bulk job's output folder appears whole or not at all, on local paths and on URIs."""

import os

import pytest

from keras_sentemb.bulk import ArrowFileSystem, published_output


def write_rows(folder, text):
    os.makedirs(folder, exist_ok=True)
    with open(os.path.join(folder, "part-0.parquet"), "w", encoding="utf-8") as f:
        f.write(text)


@pytest.mark.parametrize("as_uri", [False, True], ids=["local path", "file:// URI"])
def test_the_folder_is_published_only_when_the_block_succeeds(tmp_path, as_uri):
    target = f"file://{tmp_path}/out" if as_uri else str(tmp_path / "out")
    filesystem = ArrowFileSystem(target) if as_uri else None
    local = lambda path: path.removeprefix("file://")  # noqa: E731

    with pytest.raises(RuntimeError, match="killed"):
        with published_output(target, filesystem=filesystem) as staging:
            write_rows(local(staging), "half")
            raise RuntimeError("killed")
    assert sorted(os.listdir(tmp_path)) == []  # no target, no staging left

    with published_output(target, filesystem=filesystem) as staging:
        write_rows(local(staging), "first")
    assert open(tmp_path / "out" / "part-0.parquet").read() == "first"

    with pytest.raises(FileExistsError, match="overwrite"):
        with published_output(target, filesystem=filesystem):
            pass
    with published_output(target, overwrite=True, filesystem=filesystem) as staging:
        write_rows(local(staging), "second")
    assert open(tmp_path / "out" / "part-0.parquet").read() == "second"
    assert sorted(os.listdir(tmp_path)) == ["out"]


def test_a_uri_needs_the_filesystem_that_writes_it(tmp_path):
    with pytest.raises(ValueError, match="give the filesystem"):
        with published_output(f"file://{tmp_path}/out"):
            pass
