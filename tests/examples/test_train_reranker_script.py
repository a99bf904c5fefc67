"""examples/train_reranker.py end to end on a tiny random BERT folder and a tiny BEIR folder: graded positives
with mined and random negatives, the epochs judged on dev, the reranked order against its convex fusion with the
first stage chosen on dev, the test split read once at the end, the reranker saved."""

import json
import os

import keras

from tests.conftest import FIXTURES
from tests.examples.example_scripts import run_example_in_this_process

BEIR = os.path.join(FIXTURES, "beir_tiny")
FOLDER = os.path.join(FIXTURES, "st_folders", "bert_mean_normalize_old")


def test_trains_a_reranker_chooses_on_dev_and_reports_test_once(tmp_path):
    output = tmp_path / "run"
    arguments = ["--beir", BEIR, "--first-stage", FOLDER, "--model", FOLDER, "--epochs", "2", "--batch-size", "4"]
    arguments += ["--mine-ranks", "0:6", "--random-negatives", "1", "--top", "5", "--dev-depth", "3"]
    finished = run_example_in_this_process("train_reranker.py", *arguments, "--output", str(output))
    assert finished.returncode == 0, finished.stderr[-2000:]
    report = json.loads(finished.stdout.strip().splitlines()[-1])
    assert report["positives"] == 2 * 5 and report["random_negatives"] == 2 * 5  # two rounds of five queries
    assert len(report["dev_ndcg_at_10_by_epoch"]) == 2 and report["best_epoch"] in (1, 2)
    assert report["chosen_on_dev"] in report["dev_choice"]
    assert report["dev_choice"][report["chosen_on_dev"]] == max(report["dev_choice"].values())
    assert set(report["measured"]) == {"dev", "test"}
    assert {"first stage", "rerank", report["chosen_on_dev"]} <= set(report["measured"]["test"])
    assert json.loads((output / "report.json").read_text(encoding="utf-8")) == report
    assert not (output / "backup").exists()  # the run finished
    reranker = keras.saving.load_model(output / "reranker.keras")
    assert reranker.score_activation == "sigmoid" and reranker.predict_pairs(["q"], ["d"]).shape == (1,)
