"""`python -m zoo.recipes build NAME --reuse-training` repacks only the run the committed config
records: a run of another command (a new recipe whose first packing failed) is refused before
anything is trained or written, so it can never be published under the old version. And no build
packs a model that does not measure what its training run reported."""

import json
import os

import pytest

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
