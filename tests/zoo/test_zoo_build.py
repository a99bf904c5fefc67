"""`python -m zoo.recipes build NAME --reuse-training` repacks only the run the committed config
records: a run of another command (a new recipe whose first packing failed) is refused before
anything is trained or written, so it can never be published under the old version."""

import json
import os

import pytest

from zoo.recipes.zoo_build import build_model, check_reusable

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
