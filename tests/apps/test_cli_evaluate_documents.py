"""`keras-sentemb evaluate --beir` measures what `evaluate_beir` measures for every model type it takes — a dense
encoder, a SPLADE folder, a ColBERT folder — with the documents chunked as --chunk-* say, and records the chunking in
the report."""

import json
import os

import pytest

from keras_sentemb import MultiVectorEncoder, SentenceEncoder, SparseEncoder
from keras_sentemb.apps.cli import main
from keras_sentemb.chunking import Chunking
from keras_sentemb.evaluation.beir_retrieval import evaluate_beir
from tests.conftest import FIXTURES

BEIR = os.path.join(FIXTURES, "beir_tiny")
DENSE = os.path.join(FIXTURES, "st_folders", "bert_mean_normalize_old")
SPLADE = os.path.join(FIXTURES, "sparse_folders", "bert_splade_max")
COLBERT = os.path.join(FIXTURES, "multi_vector_folders", "bert_colbert")


def reported(tmp_path, model, *options):
    out = tmp_path / "report"
    assert main(["evaluate", model, "--beir", BEIR, "-o", str(out), "--no-progress", "--no-plots", *options]) == 0
    (task,) = json.loads((out / "report.json").read_text(encoding="utf-8"))["tasks"]
    return task


@pytest.mark.parametrize(
    "folder, model_type",
    [(SPLADE, SparseEncoder), (COLBERT, MultiVectorEncoder)],
    ids=["splade", "colbert"],
)
def test_a_splade_or_colbert_folder_is_measured_as_evaluate_beir_measures_it(tmp_path, folder, model_type):
    task = reported(tmp_path, folder)
    expected = evaluate_beir(model_type.from_pretrained(folder), BEIR)
    assert task["metrics"] == pytest.approx(expected.metrics)
    assert "document_options" not in task["details"]


@pytest.mark.parametrize(
    "folder, model_type, chunking, options",
    [
        (DENSE, SentenceEncoder, Chunking(size=6, overlap=2), ["--chunk-size", "6", "--chunk-overlap", "2"]),
        (DENSE, SentenceEncoder, Chunking(size=8, sentences=True), ["--chunk-size", "8", "--chunk-sentences"]),
        (DENSE, SentenceEncoder, Chunking(size=6, late=True), ["--chunk-size", "6", "--late-chunking"]),
        (COLBERT, MultiVectorEncoder, Chunking(size=6, overlap=2), ["--chunk-size", "6", "--chunk-overlap", "2"]),
    ],
    ids=["dense-naive", "dense-sentences", "dense-late", "colbert-naive"],
)
def test_chunked_documents_are_measured_as_evaluate_beir_measures_them(tmp_path, folder, model_type, chunking, options):
    task = reported(tmp_path, folder, *options)
    model = model_type.from_pretrained(folder)
    chunked = evaluate_beir(model, BEIR, document_options={"chunking": chunking})
    assert task["metrics"] == pytest.approx(chunked.metrics)
    assert task["metrics"]["ndcg@10"] != pytest.approx(evaluate_beir(model, BEIR).metrics["ndcg@10"])
    assert task["details"]["document_options"] == {"chunking": repr(chunking)}
