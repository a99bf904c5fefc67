"""examples/train_cross_encoder.py end to end on a tiny random MPNet folder and the sample data:
`--model` takes any sentence-transformers folder, BCE training gives scores on the label scale,
and the run leaves its model, its result and its summed fit time (no backup: it finished)."""

import json
import os

import keras
import numpy as np

from tests.conftest import FIXTURES, make_tiny_cross_encoder, make_tiny_encoder
from tests.examples.example_scripts import SAMPLE_DATA, run_example, run_example_in_this_process


def test_an_mpnet_teacher_trains_from_a_folder_and_reports_its_fit_time(tmp_path):
    output = tmp_path / "teacher"
    arguments = ["--task", "stsb", "--data", SAMPLE_DATA, "--epochs", "2"]
    arguments += ["--model", os.path.join(FIXTURES, "st_folders", "mpnet_mean_normalize_old"), "--loss", "bce"]
    arguments += ["--lora-rank", "2", "--lora-targets", "all", "--output", str(output)]
    finished = run_example("train_cross_encoder.py", *arguments)
    assert finished.returncode == 0, finished.stderr[-2000:]
    result = json.loads((output / "result.json").read_text())
    clock = json.loads((output / "training_clock.json").read_text())
    assert result["base"].endswith("mpnet_mean_normalize_old") and result["epochs"] == 2
    assert clock["epochs"] == 2 and result["fit_s"] == round(clock["seconds"])
    assert not (output / "backup").exists()  # BackupAndRestore removes it when training ends
    model = keras.saving.load_model(output / "cross_encoder.keras")
    assert model.score_activation == "sigmoid" and model.input_names == ("token_ids", "padding_mask")
    scores = model.predict_pairs(["a cat sat on the mat"], ["the cat sat"])
    assert np.all((scores > 0) & (scores < 1))


def test_silver_pairs_labelled_by_the_mean_of_a_cross_encoder_and_a_cosine(tmp_path):
    make_tiny_cross_encoder(seed=1).save(tmp_path / "labeller_cross.keras")
    make_tiny_encoder(seed=2).save(tmp_path / "labeller_bi.keras")
    labellers = [str(tmp_path / "labeller_cross.keras"), str(tmp_path / "labeller_bi.keras")]
    folder = os.path.join(FIXTURES, "st_folders", "mpnet_mean_normalize_old")
    output = tmp_path / "teacher"
    arguments = ["--task", "stsb", "--data", SAMPLE_DATA, "--epochs", "1"]
    arguments += ["--model", folder, "--loss", "bce", "--output", str(output), "--cache", str(tmp_path / "cache")]
    arguments += ["--silver-pairs", "6", "--silver-encoder", folder]
    arguments += [option for labeller in labellers for option in ("--silver-labeller", labeller)]
    finished = run_example_in_this_process("train_cross_encoder.py", *arguments)
    assert finished.returncode == 0, finished.stderr[-2000:]
    result = json.loads((output / "result.json").read_text())
    assert result["silver_pairs"] == 6 and result["silver_labeller"] == " + ".join(labellers)
    assert "silver pairs: 6 " in finished.stdout and "stsb: 22 training pairs" in finished.stdout  # 16 gold + 6
    cached = sorted(path.name for path in (tmp_path / "cache").iterdir() if path.name.startswith("silver_labels"))
    assert len(cached) == 2  # one chunk of the ensemble's labels: its array and its record
