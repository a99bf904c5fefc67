"""`python -m zoo.recipes build NAME --reuse-training` repacks only the run the committed config
records: a run of another command (a new recipe whose first packing failed) is refused before
anything is trained or written, so it can never be published under the old version. And no build
packs a model that does not measure what its training run reported. A recipe's stages train before
its own command and the card records them all; `--pack-finished` publishes runs finished outside the
build as a new version without training them again."""

import json
import os

import pytest

from tests.conftest import make_tiny_encoder
from zoo.recipes import recipes, zoo_build
from zoo.recipes.zoo_build import build_model, check_matches_training_run, check_reusable

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SAMPLE_DATA = os.path.join(REPO, "docs", "sample_data")


def committed_config(zoo_dir, name, runs):
    os.makedirs(zoo_dir / name)
    (zoo_dir / name / "config.json").write_text(json.dumps({"version": 1, "build": {"runs": runs}}))


def test_a_repack_of_a_run_of_another_command_is_refused_before_training(tmp_path):
    zoo_dir = tmp_path / "zoo"
    committed_config(zoo_dir, "sbert-minilm-l6-stsb", "python examples/train_sbert_stsb.py --lora-rank 8")
    with pytest.raises(ValueError, match="build without --reuse-training"):
        build_model("sbert-minilm-l6-stsb", str(zoo_dir), SAMPLE_DATA, str(tmp_path), reuse_training=True)
    assert not (tmp_path / "out").exists()  # no work folder, no training
    assert json.loads((zoo_dir / "sbert-minilm-l6-stsb" / "config.json").read_text())["version"] == 1


def test_the_recorded_command_or_no_committed_model_may_be_repacked(tmp_path):
    committed_config(tmp_path, "m", "python examples/x.py --seed 0")
    check_reusable("m", str(tmp_path), "python examples/x.py --seed 0")
    check_reusable("new", str(tmp_path), "python examples/x.py --seed 0")


def training_log(tmp_path, result):
    log = tmp_path / "train.log"
    log.write_text("Epoch 1/4\n" + json.dumps(result) + "\nsaved out/x\n")
    return str(log)


def test_a_rebuilt_model_that_misses_the_run_s_score_is_refused(tmp_path):
    """A resumed LoRA run whose saved adapters missed its first epochs measured 87.34 in its process
    and 81.89 rebuilt: that is refused; bfloat16-vs-float32 differences pass."""
    log = training_log(tmp_path, {"model": "sbert", "stsb_test_spearman": 87.34})
    with pytest.raises(ValueError, match=r"87\.34 in its own process.*measures 81\.89"):
        check_matches_training_run(log, {"stsb_test_spearman": 81.89})
    check_matches_training_run(log, {"stsb_test_spearman": 87.30})


def test_pair_scorers_are_checked_on_each_score_they_report(tmp_path):
    dse = {
        "model": "dse",
        "task": "stsb",
        "measured_on": "test",
        "student": {"spearman": 86.1, "cosine_spearman": 85.0},
    }
    log = training_log(tmp_path, dse)
    check_matches_training_run(log, {"stsb_test_pair_spearman": 86.0, "stsb_test_spearman": 85.1})
    with pytest.raises(ValueError, match="stsb_test_spearman = 85.00"):
        check_matches_training_run(log, {"stsb_test_pair_spearman": 86.0, "stsb_test_spearman": 84.0})
    teacher = training_log(tmp_path, {"model": "cross-encoder", "task": "stsb", "stsb_test_spearman": 88.03})
    with pytest.raises(ValueError, match="stsb_test_pair_spearman"):
        check_matches_training_run(teacher, {"stsb_test_pair_spearman": 80.0})
    dev_only = training_log(tmp_path, {"model": "sbert", "measured_on": "dev", "stsb_test_spearman": 90.0})
    check_matches_training_run(dev_only, {"stsb_test_spearman": 80.0})  # TFDS runs report dev: nothing to compare


STAGE_SCRIPT = """import argparse, json, os
parser = argparse.ArgumentParser()
parser.add_argument("--data"); parser.add_argument("--output"); parser.add_argument("--seed")
parser.add_argument("--labeller", default=None)
args = parser.parse_args()
os.makedirs(args.output, exist_ok=True)
if args.labeller:  # the recipe's own command reads what the stage trained
    assert open(args.labeller).read() == "stage one", args.labeller
with open(os.path.join(args.output, "model.txt"), "w") as f:
    f.write("stage one" if args.labeller is None else "final")
with open(os.path.join(args.output, "seed.txt"), "w") as f:
    f.write(args.seed)
with open(os.path.join(args.output, "training_clock.json"), "w") as f:
    json.dump({"seconds": 7 if args.labeller is None else 5, "epochs": 1}, f)
"""


def test_a_recipe_s_stages_train_first_with_their_own_seeds_and_the_card_records_every_command(tmp_path, monkeypatch):
    (tmp_path / "examples").mkdir()
    (tmp_path / "examples" / "train.py").write_text(STAGE_SCRIPT)
    labeller = "out/zoo_build/tiny-encoder/stage1/model.txt"

    def make(context):
        recipes.run_example(context, "train.py")
        assert (tmp_path / "out" / "zoo_build" / "tiny-encoder" / "model.txt").read_text() == "final"
        return make_tiny_encoder(seed=10)

    recipe = recipes.Recipe(
        "tiny-encoder",
        "tiny",
        "tests",
        "none",
        "a stage, then the final run",
        ("train.py", "--labeller", labeller),
        make,
        weights_dtype="float32",
        stages=(("train.py",), ("train.py", "--seed", "7")),  # the second names its seed (a soup's run)
    )
    monkeypatch.setitem(zoo_build.RECIPES, "tiny-encoder", recipe)
    monkeypatch.setattr(zoo_build, "measure", lambda model, data_dir: ({"stsb_test_spearman": 0.5}, ["the cat"]))
    (tmp_path / "data" / "stsb").mkdir(parents=True)
    (tmp_path / "data" / "stsb" / "test.tsv").touch()  # a data folder; `measure` is replaced above
    zoo_dir = tmp_path / "zoo"
    config = zoo_build.build_model(
        "tiny-encoder", str(zoo_dir), str(tmp_path / "data"), repo=str(tmp_path), cache_dir=str(tmp_path / "cache")
    )
    stage = "python examples/train.py --data DATA --output out/zoo_build/tiny-encoder/stage1 --seed 0"
    seeded = "python examples/train.py --seed 7 --data DATA --output out/zoo_build/tiny-encoder/stage2"
    assert config["build"]["runs_first"] == [stage, seeded]
    work = tmp_path / "out" / "zoo_build" / "tiny-encoder"
    assert [(work / f"stage{i}" / "seed.txt").read_text() for i in (1, 2)] == ["0", "7"]
    assert config["build"]["runs"].startswith(f"python examples/train.py --labeller {labeller} --data DATA")
    assert config["build"]["train_seconds"] == 19  # every run's own fit clock
    card = (zoo_dir / "tiny-encoder" / "card.md").read_text()
    assert f"`{stage}`; then `{seeded}`; then `{config['build']['runs']}`" in card
    with pytest.raises(ValueError, match="build without --reuse-training"):  # a stage is part of the recipe
        check_reusable("tiny-encoder", str(zoo_dir), config["build"]["runs"], [])
    check_reusable("tiny-encoder", str(zoo_dir), config["build"]["runs"], [stage, seeded])


def test_finished_runs_are_packed_as_a_new_version_without_training(tmp_path, monkeypatch):
    def make(context):
        recipes.run_example(context, "fails.py")  # reused: a finished log is there, nothing runs
        return make_tiny_encoder(seed=10)

    recipe = recipes.Recipe("tiny-encoder", "tiny", "tests", "none", "none", ("fails.py",), make, "float32")
    monkeypatch.setitem(zoo_build.RECIPES, "tiny-encoder", recipe)
    monkeypatch.setattr(zoo_build, "measure", lambda model, data_dir: ({"stsb_test_spearman": 0.5}, ["the cat"]))
    (tmp_path / "examples").mkdir()
    (tmp_path / "examples" / "fails.py").write_text("raise SystemExit(3)\n")
    (tmp_path / "data" / "stsb").mkdir(parents=True)
    (tmp_path / "data" / "stsb" / "test.tsv").touch()
    zoo_dir = tmp_path / "zoo"
    committed_config(zoo_dir, "tiny-encoder", "python examples/an_older_recipe.py")
    build = ("tiny-encoder", str(zoo_dir), str(tmp_path / "data"))
    with pytest.raises(FileNotFoundError, match="no finished run"):
        zoo_build.build_model(*build, repo=str(tmp_path), pack_finished=True)
    work = tmp_path / "out" / "zoo_build" / "tiny-encoder"
    work.mkdir(parents=True)
    (work / "train.log").write_text(json.dumps({"stsb_test_spearman": 0.5}) + "\n")
    (work / "training_clock.json").write_text(json.dumps({"seconds": 42, "epochs": 3}))
    config = zoo_build.build_model(*build, repo=str(tmp_path), cache_dir=str(tmp_path / "cache"), pack_finished=True)
    assert config["version"] == 2 and config["build"]["train_seconds"] == 42
    assert (work / "train.log").is_file()  # the finished run is kept, not trained again
    card = (zoo_dir / "tiny-encoder" / "card.md").read_text()
    assert "training took 42 s (the runs' fit clocks)" in card  # not only the seconds the packing took
