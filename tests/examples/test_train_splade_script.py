"""examples/train_splade.py end to end on tiny folders and a tiny BEIR folder: a dense model turned into a SPLADE
model (its head new, its decoder tied) or a SPLADE folder trained with model.fit, dev judging each epoch, the test
split read at the end, the model saved."""

import json
import os

import keras

from keras_sentemb.models import SparseEncoder
from tests.conftest import FIXTURES
from tests.examples.example_scripts import run_example, run_example_in_this_process

BEIR = os.path.join(FIXTURES, "beir_tiny")


def test_a_dense_folder_trains_as_a_splade_model(tmp_path):
    dense = os.path.join(FIXTURES, "st_folders", "bert_mean_normalize_old")
    # the tiny folder's logits are near 0: its new head starts unthresholded (the default −5 suits real models)
    arguments = ["--beir", BEIR, "--model", dense, "--epochs", "2", "--batch-size", "2", "--head-bias", "0"]
    finished = run_example("train_splade.py", *arguments, "--output", str(tmp_path))
    assert finished.returncode == 0, finished.stderr[-2000:]
    report = json.loads(finished.stdout.strip().splitlines()[-1])
    assert report["pairs"] == 8 and report["steps"] == 8 and len(report["dev_ndcg_at_10_by_epoch"]) == 2
    assert report["head_bias"] == 0.0
    assert set(report["test"]) == {"ndcg@10", "recall@100", "mrr@10", "map@100"}
    assert report["active_dimensions_query"] > 0 and report["active_dimensions_document"] > 0
    assert json.loads((tmp_path / "report.json").read_text(encoding="utf-8")) == report
    assert isinstance(keras.saving.load_model(tmp_path / "sparse_encoder.keras"), SparseEncoder)


def test_a_splade_folder_trains_as_it_is_and_skip_test_leaves_the_test_split_to_the_caller(tmp_path):
    folder = os.path.join(FIXTURES, "sparse_folders", "bert_splade_max")
    arguments = ["--beir", BEIR, "--model", folder, "--max-pairs", "4", "--batch-size", "2", "--output", str(tmp_path)]
    finished = run_example_in_this_process("train_splade.py", *arguments, "--skip-test")
    assert finished.returncode == 0, finished.stderr[-2000:]
    report = json.loads(finished.stdout.strip().splitlines()[-1])
    assert report["pairs"] == 4 and report["test"] is None
