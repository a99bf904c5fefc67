"""The zoo API end to end on a tiny model: list, card, load, export, and a round trip
publish → loopback HTTP → fetch into an empty cache → load with identical embeddings.
Without a store nothing touches the network. (Serving an export in a fresh process is
tested in tests/export; `python -m zoo.recipes.export_check` does it for every zoo model.)"""

import json
import os
import urllib.request

import numpy as np
import pytest

from keras_sentemb import zoo
from keras_sentemb.apps.cli import main
from keras_sentemb.zoo.model_artifact import save_artifact
from tests.conftest import make_tiny_encoder
from tests.zoo.test_model_store import serve
from zoo.recipes.__main__ import main as recipes_main
from zoo.recipes.model_card import render_card
from zoo.recipes.zoo_build import folder_bytes, write_zoo_index

TEXTS = ["the cat sat on the mat .", "a dog ran fast", "hello world"]


def write_tiny_zoo_model(zoo_dir, name="tiny-encoder", version=1):
    """A zoo entry as `zoo build` writes it, for a tiny random encoder."""
    encoder = make_tiny_encoder(seed=9)
    folder = os.path.join(zoo_dir, name)
    artifact = save_artifact(encoder, folder, weights_dtype="float32")
    config = {
        "name": name,
        "version": version,
        "summary": "a tiny random BERT",
        "use": "tests",
        "base": "none",
        "training_data": "none",
        "class": artifact["class"],
        "sources": [],
        "weights_dtype": "float32",
        "stored_parameters": artifact["stored_parameters"],
        "total_parameters": artifact["total_parameters"],
        "metrics": {"stsb_test_spearman": 1.0},
        "measured_by": "nothing",
        "size_bytes": folder_bytes(folder),
        "build": {
            "command": f"python -m zoo.recipes build {name}",
            "runs": None,
            "seconds": 0,
            "machine": "test",
            "date": "2026-01-01",
            "seed": 0,
        },
    }
    with open(os.path.join(folder, "config.json"), "w", encoding="utf-8") as f:
        json.dump(config, f)
    with open(os.path.join(folder, "card.md"), "w", encoding="utf-8") as f:
        f.write(render_card(config))
    write_zoo_index(
        zoo_dir,
        {"models": {name: {k: config[k] for k in ("version", "summary", "use", "class", "size_bytes", "metrics")}}},
    )
    return encoder


@pytest.fixture()
def tiny_zoo(tmp_path, monkeypatch):
    zoo_dir, home = tmp_path / "zoo", tmp_path / "home"
    monkeypatch.setenv("KERAS_SENTEMB_ZOO", str(zoo_dir))
    monkeypatch.setenv("KERAS_SENTEMB_HOME", str(home))
    return write_tiny_zoo_model(str(zoo_dir)), zoo_dir, home


def test_list_card_and_load_from_the_zoo_folder(tiny_zoo):
    encoder, _, _ = tiny_zoo
    [entry] = zoo.list()
    assert entry["name"] == "tiny-encoder" and entry["location"] == "zoo" and entry["version"] == 1
    assert zoo.card("tiny-encoder").startswith("# tiny-encoder (version 1)")
    np.testing.assert_array_equal(zoo.load("tiny-encoder").encode(TEXTS), encoder.encode(TEXTS))


def test_publish_serve_fetch_and_load_give_identical_embeddings(tiny_zoo, tmp_path, monkeypatch):
    encoder, _, home = tiny_zoo
    store = tmp_path / "store"
    entry = zoo.publish("tiny-encoder", str(store), hub=False)  # hub modules: test_hub_hosting.py
    monkeypatch.setenv("KERAS_SENTEMB_ZOO", str(tmp_path / "empty-zoo"))  # only the cache is left
    with pytest.raises(ValueError, match="not available offline"):
        zoo.load("tiny-encoder")
    with serve(store) as url:
        folder = zoo.fetch("tiny-encoder", url, progress=False)
    assert (
        folder.startswith(str(home))
        and json.load(open(os.path.join(folder, ".fetched.json")))["sha256"] == entry["sha256"]
    )
    np.testing.assert_array_equal(zoo.load("tiny-encoder").encode(TEXTS), encoder.encode(TEXTS))
    assert [m["location"] for m in zoo.list()] == ["cache"]


def test_loading_without_a_store_never_opens_a_url(tiny_zoo, monkeypatch):
    def no_network(*args, **kwargs):
        raise AssertionError("the zoo touched the network")

    monkeypatch.setattr(urllib.request, "urlopen", no_network)
    zoo.load("tiny-encoder")
    with pytest.raises(ValueError, match="not available offline"):
        zoo.load("not-a-model")


def test_a_missing_model_error_says_where_it_looked(tiny_zoo, monkeypatch):
    _, zoo_dir, home = tiny_zoo
    with pytest.raises(ValueError) as error:
        zoo.load("not-a-model")
    assert f"the zoo folder {zoo_dir}" in str(error.value) and os.path.join(str(home), "zoo") in str(error.value)
    monkeypatch.setattr("keras_sentemb.zoo.local_zoo.zoo_dir", lambda: None)
    with pytest.raises(ValueError, match=r"no zoo folder \(\$KERAS_SENTEMB_ZOO unset"):
        zoo.load("not-a-model")


def test_a_retired_model_error_names_its_replacement(tiny_zoo):
    with pytest.raises(ValueError, match="it was retired: use cross-encoder-mpnet-base-stsb"):
        zoo.load("cross-encoder-minilm-l6-stsb")


def test_export_writes_the_models_savedmodel(tiny_zoo, tmp_path):
    folder = zoo.export("tiny-encoder", str(tmp_path / "served"), version=3)
    assert folder.endswith(os.path.join("served", "3")) and os.path.isfile(os.path.join(folder, "saved_model.pb"))


def test_an_empty_zoo_list_says_where_it_looked(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("KERAS_SENTEMB_ZOO", str(tmp_path / "empty-zoo"))
    monkeypatch.setenv("KERAS_SENTEMB_HOME", str(tmp_path / "home"))
    assert main(["zoo", "list"]) == 0
    out = capsys.readouterr().out
    assert "model  version" not in out  # no empty table
    assert f"no zoo models: searched the zoo folder {tmp_path / 'empty-zoo'}" in out
    assert str(tmp_path / "home") in out and "keras-sentemb zoo fetch" in out


def test_the_cli_lists_prints_cards_and_evaluates_zoo_models(tiny_zoo, tmp_path, capsys):
    assert main(["zoo", "list"]) == 0
    assert "tiny-encoder" in capsys.readouterr().out
    assert main(["zoo", "card", "tiny-encoder"]) == 0
    assert "## How it was built" in capsys.readouterr().out
    sts = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "fixtures", "eval_tasks", "sts")
    assert (
        main(
            [
                "evaluate",
                "zoo:tiny-encoder",
                "--tasks",
                "sts-dir",
                "--sts-dir",
                sts,
                "--no-plots",
                "-o",
                str(tmp_path / "r"),
            ]
        )
        == 0
    )
    assert main(["zoo", "fetch", "tiny-encoder", "--store", str(tmp_path / "nowhere")]) == 2
    assert "has no model 'tiny-encoder'" in capsys.readouterr().err


def test_measure_reproduces_the_quality_and_updates_only_the_speed(tiny_zoo, tmp_path, capsys):
    _, zoo_dir, _ = tiny_zoo
    data = tmp_path / "data" / "stsb"
    data.mkdir(parents=True)
    rows = "".join(
        f"{i % 5}.0\tthe cat sat {'on the mat' * (i % 3)}\ta dog ran {'fast' * (i % 4)}\n" for i in range(12)
    )
    (data / "test.tsv").write_text("score\tsentence1\tsentence2\n" + rows, encoding="utf-8")
    assert recipes_main(["measure", "tiny-encoder", "--data", str(tmp_path / "data"), "--update-speed"]) == 0
    printed = capsys.readouterr().out
    assert "stsb_test_spearman" in printed and "sentences_per_second" in printed
    config = json.load(open(zoo_dir / "tiny-encoder" / "config.json"))
    assert config["metrics"]["stsb_test_spearman"] == 1.0  # the build's figure is kept
    assert (
        config["metrics"]["sentences_per_second"] > 0
        and config["measured_by"] == "python -m zoo.recipes measure tiny-encoder --data DATA"
    )
    assert "re-measured on" in (zoo_dir / "tiny-encoder" / "card.md").read_text()
    assert zoo.list()[0]["metrics"]["sentences_per_second"] == config["metrics"]["sentences_per_second"]


def test_the_zoo_folder_is_the_variable_else_the_installed_companion_else_none(tmp_path, monkeypatch):
    import importlib

    monkeypatch.delenv("KERAS_SENTEMB_ZOO", raising=False)
    monkeypatch.setenv("KERAS_SENTEMB_HOME", str(tmp_path / "home"))
    monkeypatch.setattr(zoo.local_zoo.importlib.util, "find_spec", lambda name: None)
    assert zoo.zoo_dir() is None and zoo.list() == []
    monkeypatch.undo()
    package = tmp_path / "site" / "keras_sentemb_zoo"
    write_tiny_zoo_model(str(package))
    (package / "__init__.py").write_text("")
    monkeypatch.delenv("KERAS_SENTEMB_ZOO", raising=False)
    monkeypatch.setenv("KERAS_SENTEMB_HOME", str(tmp_path / "home"))
    monkeypatch.syspath_prepend(str(tmp_path / "site"))
    importlib.invalidate_caches()
    assert zoo.zoo_dir() == str(package)
    assert [entry["name"] for entry in zoo.list()] == ["tiny-encoder"]
    monkeypatch.setenv("KERAS_SENTEMB_ZOO", str(tmp_path / "elsewhere"))
    assert zoo.zoo_dir() == str(tmp_path / "elsewhere")


def test_publishing_the_whole_zoo_writes_a_static_store_with_cards_and_licences(tiny_zoo, tmp_path, capsys):
    _, zoo_dir, _ = tiny_zoo
    with open(zoo_dir / "tiny-encoder" / "card.md", "a", encoding="utf-8") as f:
        f.write("\n## Licences\n\n- tiny weights: Apache-2.0\n- tiny data: CC0\n")
    store = tmp_path / "store"
    assert main(["zoo", "publish", str(store)]) == 0  # the store alone: every local model; no hub modules
    out = capsys.readouterr().out
    entry = json.loads((store / "index.json").read_text())["models"]["tiny-encoder"]["versions"]["1"]
    assert "published tiny-encoder" in out
    assert (
        f"store {store}: {entry['bytes'] / 1e6:.1f} MB ({entry['bytes'] / 1e6:.1f} MB of model archives, 0.0 MB" in out
    )
    assert entry["card"] == "tiny-encoder/tiny-encoder-v1.md" and "hub" not in entry
    assert entry["licences"] == ["tiny weights: Apache-2.0", "tiny data: CC0"]
    assert (store / entry["card"]).read_text(encoding="utf-8") == (zoo_dir / "tiny-encoder" / "card.md").read_text(
        encoding="utf-8"
    )
    assert sorted(os.listdir(store / "tiny-encoder")) == [
        "tiny-encoder-v1.md",
        "tiny-encoder-v1.tar.gz",
        "tiny-encoder-v1.tar.gz.sha256",
    ]
    assert main(["zoo", "publish", "tiny-encoder", str(store)]) == 0  # same bytes: a no-op


def test_a_checkout_after_make_venv_lists_every_committed_model_without_configuration(monkeypatch, capsys):
    """`make venv` installs the checkout's zoo/ as the companion (editable): no $KERAS_SENTEMB_ZOO needed."""
    checkout_zoo = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), "zoo")
    monkeypatch.delenv("KERAS_SENTEMB_ZOO", raising=False)
    assert os.path.realpath(zoo.zoo_dir()) == os.path.realpath(checkout_zoo)
    with open(os.path.join(checkout_zoo, "index.json"), encoding="utf-8") as f:
        committed = sorted(json.load(f)["models"])
    assert main(["zoo", "list"]) == 0
    listed = [line.split()[0] for line in capsys.readouterr().out.splitlines()[1:-1]]  # header, rows, legend
    assert listed == committed and len(committed) >= 8


def test_zoo_list_names_the_score_behind_each_sts_figure(monkeypatch, capsys):
    """Hash models are measured on the cosine and on Hamming distances, the cross-encoder and DSE on
    their pair scores: each figure says what it scored, and the last line says what the column is."""
    monkeypatch.delenv("KERAS_SENTEMB_ZOO", raising=False)
    with open(os.path.join(zoo.zoo_dir(), "index.json"), encoding="utf-8") as f:
        models = json.load(f)["models"]
    assert main(["zoo", "list"]) == 0
    header, *rows, legend = capsys.readouterr().out.splitlines()
    assert "STS-B test ρ" in header and legend.startswith("STS-B test ρ: Spearman × 100 on the STS-B test")
    for row in rows:
        name = row.split()[0]
        metrics, kind = models[name]["metrics"], models[name]["class"]
        expected = []
        if "stsb_test_spearman" in metrics:
            expected.append(f"{metrics['stsb_test_spearman']:.2f} cosine")
        if "stsb_test_pair_spearman" in metrics:
            pair = "cross-encoder" if kind == "CrossEncoder" else "pair head"
            expected.append(f"{metrics['stsb_test_pair_spearman']:.2f} {pair}")
        if "stsb_test_hamming_spearman" in metrics:
            expected.append(f"{metrics['stsb_test_hamming_spearman']:.2f} Hamming")
        assert f"  {' / '.join(expected)}  " in row, row
