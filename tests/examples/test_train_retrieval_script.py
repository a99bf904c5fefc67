"""examples/train_retrieval.py end to end on a tiny random MPNet folder and a tiny BEIR folder: rounds
of one train pair a query, mined hard negatives, the dev split judging each epoch, the test split read
at the end, the model saved."""

import json
import os

import keras

from keras_sentemb import SentenceEncoder
from keras_sentemb.data.beir_folder import read_beir_folder
from keras_sentemb.evaluation import evaluate_beir
from tests.conftest import FIXTURES
from tests.examples.example_scripts import SAMPLE_DATA, run_example, run_example_in_this_process

BEIR = os.path.join(FIXTURES, "beir_tiny")
FOLDER = os.path.join(FIXTURES, "st_folders", "mpnet_mean_normalize_old")


def test_fine_tunes_on_rounds_of_train_pairs_with_mined_negatives_and_reports_dev_and_test(tmp_path):
    output = tmp_path / "run"
    arguments = ["--beir", BEIR, "--model", FOLDER, "--epochs", "2", "--batch-size", "4", "--data", SAMPLE_DATA]
    arguments += ["--hard-negatives", "1"]
    finished = run_example("train_retrieval.py", *arguments, "--output", str(output))
    assert finished.returncode == 0, finished.stderr[-2000:]
    result = json.loads(finished.stdout.strip().splitlines()[-1])
    assert result["pairs"] == 8 and result["hard_negatives"] == 1 and result["sampling"] == "rounds"
    assert result["examples"] + result["pairs_without_negative"] == 2 * 5  # two rounds of the five train queries
    assert result["best_epoch"] in (1, 2) and 0 <= result["dev_ndcg_at_10"] <= 100
    assert max(result["dev_ndcg_at_10_by_epoch"]) == result["dev_ndcg_at_10"]  # one a round, the best kept
    assert len(result["dev_ndcg_at_10_by_epoch"]) == 2
    assert json.loads((output / "report.json").read_text(encoding="utf-8")) == result
    assert set(result["test_after"]) == {"ndcg@10", "recall@100", "mrr@10", "map@100"}
    assert result["stsb_test_before"] is not None and result["stsb_test_after"] is not None
    assert not (output / "backup").exists()  # the run finished
    keras.saving.load_model(output / "encoder.keras")


def test_your_own_pairs_train_with_in_batch_negatives_only(tmp_path):
    pairs = tmp_path / "pairs.tsv"
    pairs.write_text(
        "query\tdocument\nasthma diet\tFruit and asthma.\ncoffee\tCoffee and diabetes.\n", encoding="utf-8"
    )
    arguments = ["--beir", BEIR, "--model", FOLDER, "--pairs", str(pairs), "--sampling", "pairs", "--epochs", "1"]
    finished = run_example_in_this_process(
        "train_retrieval.py", *arguments, "--batch-size", "2", "--output", str(tmp_path / "run")
    )
    assert finished.returncode == 0, finished.stderr[-2000:]
    result = json.loads(finished.stdout.strip().splitlines()[-1])
    assert result["pairs"] == 2 and result["examples"] == 2


def test_a_later_run_of_the_same_model_reads_the_measures_before_training_from_its_output_folder(tmp_path):
    output = tmp_path / "run"
    output.mkdir()
    before = {"dev_ndcg_at_10": 12.5, "test": {"ndcg@10": 1.0, "recall@100": 2.0, "mrr@10": 3.0, "map@100": 4.0}}
    saved = {"model": FOLDER, **before, "stsb_test": None}
    (output / "before.json").write_text(json.dumps(saved), encoding="utf-8")
    arguments = ["--beir", BEIR, "--model", FOLDER, "--epochs", "1", "--batch-size", "4", "--output", str(output)]
    finished = run_example_in_this_process("train_retrieval.py", *arguments)
    assert finished.returncode == 0, finished.stderr[-2000:]
    assert "the measures before training, from" in finished.stdout
    result = json.loads(finished.stdout.strip().splitlines()[-1])
    assert result["dev_ndcg_at_10_before"] == 12.5 and result["test_before"] == before["test"]


def test_a_run_killed_after_its_first_epoch_continues_the_rounds_from_the_second(tmp_path):
    output = tmp_path / "run"
    (output / "backup").mkdir(parents=True)  # what a run killed in epoch 2 leaves (here without weights)
    (output / "backup" / "training_metadata.json").write_text('{"epoch": 1, "batch": 0}', encoding="utf-8")
    arguments = ["--beir", BEIR, "--model", FOLDER, "--epochs", "2", "--batch-size", "4", "--output", str(output)]
    finished = run_example_in_this_process("train_retrieval.py", *arguments)
    assert finished.returncode == 0, finished.stderr[-2000:]
    result = json.loads(finished.stdout.strip().splitlines()[-1])
    done = result["steps_per_epoch"]  # the first epoch's batches of the one pass over both rounds
    assert f"resuming after epoch 1: {done} batches done" in finished.stdout
    assert len(result["dev_ndcg_at_10_by_epoch"]) == 1  # only epoch 2 ran here


def test_mixed_bfloat16_training_is_measured_in_float32(tmp_path):
    arguments = ["--beir", BEIR, "--model", FOLDER, "--epochs", "1", "--batch-size", "4", "--dtype", "mixed_bfloat16"]
    finished = run_example_in_this_process("train_retrieval.py", *arguments, "--output", str(tmp_path / "run"))
    assert finished.returncode == 0, finished.stderr[-2000:]
    result = json.loads(finished.stdout.strip().splitlines()[-1])
    assert result["dtype"] == "mixed_bfloat16"
    float32 = SentenceEncoder.from_pretrained(FOLDER)
    measured = evaluate_beir(float32, read_beir_folder(BEIR, split="test"), progress=False).metrics
    assert result["test_before"] == {k: round(v, 2) for k, v in measured.items()}
