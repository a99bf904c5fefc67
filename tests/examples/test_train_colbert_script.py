"""examples/train_colbert.py end to end on tiny folders and a tiny BEIR folder: a dense model turned into ColBERT (a
new projection) or a ColBERT folder trained with model.fit on BM25-mined triples, dev judging each epoch, the test
split read at the end (or left to the caller), the triples written for the anchor, the model saved."""

import json
import os

import keras

from keras_sentemb.models import MultiVectorEncoder
from tests.conftest import FIXTURES
from tests.examples.example_scripts import run_example, run_example_in_this_process

BEIR = os.path.join(FIXTURES, "beir_tiny")


def test_a_dense_folder_trains_as_colbert(tmp_path):
    dense = os.path.join(FIXTURES, "st_folders", "bert_mean_normalize_old")
    arguments = ["--beir", BEIR, "--model", dense, "--epochs", "2", "--batch-size", "2", "--dim", "16"]
    finished = run_example("train_colbert.py", *arguments, "--output", str(tmp_path))
    assert finished.returncode == 0, finished.stderr[-2000:]
    report = json.loads(finished.stdout.strip().splitlines()[-1])
    assert report["pairs"] == 8 and report["steps"] == 8 and len(report["dev_ndcg_at_10_by_epoch"]) == 2
    assert set(report["test"]) == {"ndcg@10", "recall@100", "mrr@10", "map@100"}
    assert json.loads((tmp_path / "report.json").read_text(encoding="utf-8")) == report
    model = keras.saving.load_model(tmp_path / "multi_vector_encoder.keras")
    assert isinstance(model, MultiVectorEncoder) and model.embedding_dim == 16


def test_a_colbert_folder_trains_as_it_is_and_writes_its_triples(tmp_path):
    folder = os.path.join(FIXTURES, "multi_vector_folders", "bert_colbert")
    triples = tmp_path / "triples.json"
    arguments = ["--beir", BEIR, "--model", folder, "--max-pairs", "4", "--batch-size", "2", "--output", str(tmp_path)]
    finished = run_example_in_this_process("train_colbert.py", *arguments, "--skip-test", "--triples", str(triples))
    assert finished.returncode == 0, finished.stderr[-2000:]
    report = json.loads(finished.stdout.strip().splitlines()[-1])
    assert report["pairs"] == 4 and report["test"] is None
    rows = json.loads(triples.read_text(encoding="utf-8"))
    assert len(rows) == 4 and all(len(row) == 3 and row[1] != row[2] for row in rows)
