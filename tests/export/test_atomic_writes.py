"""A failure in the middle of a zoo build or a zoo publish leaves the previous version
exactly as it was, and no temporary files behind (for `export`: tests/export/test_serving_export.py)."""

import hashlib
import os

import pytest

from keras_sentemb.zoo import model_store
from tests.conftest import make_tiny_encoder
from tests.zoo.test_local_zoo import write_tiny_zoo_model
from zoo.recipes import recipes, zoo_build


def tree_digest(folder):
    """sha256 over every file's relative path and bytes (sorted)."""
    digest = hashlib.sha256()
    for root, _, files in sorted(os.walk(folder)):
        for name in sorted(files):
            path = os.path.join(root, name)
            digest.update(os.path.relpath(path, folder).encode())
            with open(path, "rb") as f:
                digest.update(f.read())
    return digest.hexdigest()


class Crash(RuntimeError):
    pass


def test_a_zoo_build_that_fails_after_packing_keeps_the_previous_model(tmp_path, monkeypatch):
    zoo_dir = tmp_path / "zoo"
    write_tiny_zoo_model(str(zoo_dir))
    before = tree_digest(zoo_dir / "tiny-encoder")
    recipe = recipes.Recipe(
        "tiny-encoder",
        "tiny",
        "tests",
        "none",
        "none",
        (),
        lambda context: make_tiny_encoder(seed=10),
        weights_dtype="float32",
        needs=(),
    )
    monkeypatch.setitem(zoo_build.RECIPES, "tiny-encoder", recipe)
    calls = []

    def measure_then_fail(model, data_dir):
        calls.append(model)
        if len(calls) == 2:  # measuring the packed artifact, inside the staging folder
            raise Crash("killed while measuring")
        return {"stsb_test_spearman": 0.5}, ["the cat"]

    monkeypatch.setattr(zoo_build, "measure", measure_then_fail)
    (tmp_path / "data" / "stsb").mkdir(parents=True)
    (tmp_path / "data" / "stsb" / "test.tsv").touch()  # a data folder; `measure` is replaced above
    with pytest.raises(Crash):
        zoo_build.build_model(
            "tiny-encoder", str(zoo_dir), str(tmp_path / "data"), repo=str(tmp_path), cache_dir=str(tmp_path / "cache")
        )
    assert len(calls) == 2
    assert tree_digest(zoo_dir / "tiny-encoder") == before
    assert sorted(os.listdir(zoo_dir)) == ["index.json", "tiny-encoder"]


def test_a_publish_that_fails_before_the_index_keeps_the_store_at_the_previous_version(tmp_path, monkeypatch):
    zoo_dir, store = tmp_path / "zoo", tmp_path / "store"
    write_tiny_zoo_model(str(zoo_dir))
    model_store.publish_folder(str(zoo_dir / "tiny-encoder"), "tiny-encoder", 1, str(store))
    index_before = (store / "index.json").read_bytes()
    archive_before = (store / "tiny-encoder" / "tiny-encoder-v1.tar.gz").read_bytes()
    real_write = model_store._write_bytes

    def fail_on_index(location, data):
        if location.endswith("index.json"):
            raise Crash("connection lost")
        real_write(location, data)

    monkeypatch.setattr(model_store, "_write_bytes", fail_on_index)
    (zoo_dir / "tiny-encoder" / "card.md").write_text("changed", encoding="utf-8")
    with pytest.raises(Crash):
        model_store.publish_folder(str(zoo_dir / "tiny-encoder"), "tiny-encoder", 2, str(store))
    assert (store / "index.json").read_bytes() == index_before  # still says v1 is the latest
    assert (store / "tiny-encoder" / "tiny-encoder-v1.tar.gz").read_bytes() == archive_before
    assert not [p for p in store.rglob("*") if ".tmp" in p.name]
