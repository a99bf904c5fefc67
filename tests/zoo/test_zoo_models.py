"""Committed zoo models load offline to the model their build measured: their outputs for
the probe texts equal those recorded in probe.json. The suite checks one model of each kind
that rebuilds from the MiniLM wheel (LoRA delta, hashing head, pair scorer), keeping its time
budget; `python -m zoo.recipes.export_check` loads and serves every model."""

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
CHECKED = ("sbert-minilm-l6-stsb", "minilm-l6-hash256", "cross-encoder-minilm-l6-stsb")


def test_the_zoo_index_lists_every_model_folder_and_fits_the_budget():
    # Every folder but the recipes (the code that builds the zoo) is a model.
    folders = sorted(
        n
        for n in os.listdir(ZOO)
        if os.path.isdir(os.path.join(ZOO, n)) and n not in ("recipes", "__pycache__") and not n.startswith(".")
    )
    assert folders == sorted(INDEX)
    total = sum(entry["size_bytes"] for entry in INDEX.values())
    assert total <= 40 * 1024 * 1024 and all(e["size_bytes"] <= 10 * 1024 * 1024 for e in INDEX.values())


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
