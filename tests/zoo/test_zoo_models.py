"""Every committed zoo model built on MiniLM loads offline to the model its build measured:
its outputs for the probe texts equal those recorded in probe.json. (The word-vector models
rebuild 100k-word tables on first load; `python -m keras_sentemb.zoo.export_check` covers
them and every model's SavedModel.)"""

import json
import os

import numpy as np
import pytest

from keras_sentemb import zoo
from keras_sentemb.zoo.zoo_build import model_outputs, read_zoo_index

ZOO = zoo.zoo_dir()
INDEX = read_zoo_index(ZOO)["models"] if not os.environ.get("KERAS_SENTEMB_ZOO") else {}
MINILM_MODELS = sorted(name for name in INDEX
                       if json.load(open(os.path.join(ZOO, name, "artifact.json")))["sources"]
                       and all(s["kind"] == "pretrained-backbone"
                               for s in json.load(open(os.path.join(ZOO, name, "artifact.json")))["sources"]))


def test_the_zoo_index_lists_every_model_folder_and_fits_the_budget():
    folders = sorted(n for n in os.listdir(ZOO) if os.path.isdir(os.path.join(ZOO, n)) and not n.startswith("."))
    assert folders == sorted(INDEX)
    total = sum(entry["size_bytes"] for entry in INDEX.values())
    assert total <= 40 * 1024 * 1024 and all(e["size_bytes"] <= 10 * 1024 * 1024 for e in INDEX.values())


@pytest.mark.parametrize("name", MINILM_MODELS)
def test_a_minilm_zoo_model_loads_to_its_recorded_outputs(name, minilm_encoder):
    probe = json.load(open(os.path.join(ZOO, name, "probe.json"), encoding="utf-8"))
    outputs = model_outputs(zoo.load(name), probe["texts"])
    np.testing.assert_allclose(outputs, np.array(probe["outputs"]), atol=2e-4)
