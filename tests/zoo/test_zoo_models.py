"""Committed zoo models load offline to the model their build measured: their outputs for
the probe texts equal those recorded in probe.json. The suite checks one model of each kind
that rebuilds from the MiniLM wheel (LoRA delta, hashing head, pair scorer), keeping its time
budget (the MPNet members: tests/pretrained/test_mpnet_base.py, in `make test-slow`);
`python -m zoo.recipes.export_check` loads and serves every model."""

import json
import os

import numpy as np
import pytest

from keras_sentemb import zoo
from keras_sentemb.zoo.zoo_index import read_zoo_index
from zoo.recipes.zoo_build import model_outputs
from zoo.recipes.zoo_folder import ZOO_DIR

ZOO = ZOO_DIR
INDEX = read_zoo_index(ZOO)["models"]
CHECKED = ("sbert-minilm-l6-stsb", "minilm-l6-hash256", "dse-minilm-l6-stsb")


def test_the_zoo_index_lists_every_model_folder_and_fits_the_budget():
    # Every folder but the recipes (the code that builds the zoo) and the shared word table is a model.
    folders = sorted(
        n
        for n in os.listdir(ZOO)
        if os.path.isdir(os.path.join(ZOO, n))
        and n not in ("recipes", "__pycache__", "word-vectors")
        and not n.startswith(".")
    )
    assert folders == sorted(INDEX)
    total = sum(entry["size_bytes"] for entry in INDEX.values())
    assert all(e["size_bytes"] <= 10 * 1024 * 1024 for e in INDEX.values())
    shared = sum(e.stat().st_size for e in os.scandir(os.path.join(ZOO, "word-vectors")))
    assert total + shared <= 60 * 1000 * 1000  # what the zoo wheel unpacks to


def test_the_shipped_word_table_is_the_one_the_word_models_are_built_on():
    """zoo/word-vectors holds the int6-rows entry of the "minilm" table the word-level members'
    sources name (keyed by the computation and the encoding, sha256 of its bytes): they load it,
    not a 70 s build, and it is under a fifth of the float32 table and within the 10 MB a zoo
    artifact may weigh."""
    from keras_sentemb.utils.array_cache import load_cached_array

    folder = os.path.join(ZOO, "word-vectors")
    (meta_path,) = [e.path for e in os.scandir(folder) if e.name.endswith(".json")]
    meta = json.load(open(meta_path, encoding="utf-8"))
    name = os.path.basename(meta_path).rsplit("-", 1)[0]
    assert meta["encoding"] == "int6-rows" and name.endswith("-int6-rows")
    table = load_cached_array(folder, name, meta["key"])
    assert table is not None and table.dtype == np.float32 and table.shape == (100_000, 128)
    shared = sum(e.stat().st_size for e in os.scandir(folder))
    assert shared < 100_000 * (128 * 6 // 8 + 4) + 4096 and shared <= 10 * 1024 * 1024
    for model in ("inferlite-glove", "bilstm-sra-minilm", "bilstm-sra-minilm-hash256"):
        (source,) = json.load(open(os.path.join(ZOO, model, "artifact.json"), encoding="utf-8"))["sources"][-1:]
        assert source == {
            "kind": "word-vectors",
            "top_n": 100_000,
            "types": ["glove", "minilm"],
            "minilm_dims": 128,
            "minilm_encoding": "int6-rows",
        }


@pytest.mark.parametrize("name", [n for n in CHECKED if n in INDEX])
def test_a_zoo_model_loads_to_its_recorded_outputs(name, minilm_encoder):
    probe = json.load(open(os.path.join(ZOO, name, "probe.json"), encoding="utf-8"))
    outputs = model_outputs(zoo.load(name), probe["texts"])
    np.testing.assert_allclose(outputs, np.array(probe["outputs"]), atol=2e-4)


def test_the_minilm_backbone_is_never_stored_and_another_base_is_refused(tmp_path, minilm_encoder):
    import shutil

    from keras_sentemb.zoo.model_artifact import load_artifact

    described = json.load(open(os.path.join(ZOO, "minilm-l6", "artifact.json")))
    assert described["stored_parameters"] == 0 and len(described["sources"][0]["sha256"]) == 64
    copy = tmp_path / "minilm-l6"
    shutil.copytree(os.path.join(ZOO, "minilm-l6"), copy)
    described["sources"][0]["sha256"] = "0" * 64
    (copy / "artifact.json").write_text(json.dumps(described))
    with pytest.raises(ValueError, match="install the pinned base weights"):
        load_artifact(copy)


def test_every_committed_artifact_records_the_sha256_of_all_its_files():
    from keras_sentemb.zoo.model_artifact import artifact_files_sha256

    for name in INDEX:
        folder = os.path.join(ZOO, name)
        with open(os.path.join(folder, "artifact.json"), encoding="utf-8") as f:
            recorded = json.load(f)["files_sha256"]
        assert recorded == artifact_files_sha256(folder), name
        assert {"model.json", "weights.npz"} <= set(recorded)
