"""Hostile options of `keras-sentemb evaluate`'s document chunking and model types: `EVALUATE_ROWS`, in the form of
tests/hostile_inputs.py's rows, run by tests/apps/test_hostile_evaluate.py in-process and by
benchmarks/hostile_inputs.py each in its own process.

An overlap as wide as the chunk, a size of 0 or 10^11, an overlap without a size, chunking without --beir, a SPLADE
folder chunked or given STS tasks, late chunking of a ColBERT folder: one error line each, exit 2, no report.
"""

import os

from tests.hostile_inputs import FIXTURES, Row, cli

BEIR = os.path.join(FIXTURES, "beir_tiny")
SPLADE = os.path.join(FIXTURES, "sparse_folders", "bert_splade_max")
COLBERT = os.path.join(FIXTURES, "multi_vector_folders", "bert_colbert")


def _evaluate(*options, model=None, beir=True):
    """`evaluate MODEL [--beir tests/fixtures/beir_tiny] OPTIONS -o work/report` (MODEL: the tiny encoder file)."""

    def argv(fixtures, work):
        where = ["--beir", BEIR] if beir else []
        return ["evaluate", model or fixtures.model_file, *where, *options, "-o", os.path.join(work, "report")]

    return cli(argv)


EVALUATE_ROWS = [
    Row(
        "evaluate",
        "evaluate --chunk-size 4 --chunk-overlap 4",
        _evaluate("--chunk-size", "4", "--chunk-overlap", "4"),
        r"--chunk-size 4 --chunk-overlap 4: Chunking overlap must be in \[0, size=4\), got 4",
        absent=("report",),
    ),
    Row(
        "evaluate",
        "evaluate --chunk-size 0",
        _evaluate("--chunk-size", "0"),
        r"--chunk-size 0 --chunk-overlap 0: Chunking size must be a positive int or None, got 0",
        absent=("report",),
    ),
    Row(
        "evaluate",
        "evaluate --chunk-size 10^11",
        _evaluate("--chunk-size", "100000000000"),
        r"Chunking size 100000000000 exceeds the \d+ word pieces this model takes a text",
        absent=("report",),
    ),
    Row(
        "evaluate",
        "evaluate --chunk-overlap without --chunk-size",
        _evaluate("--chunk-overlap", "3"),
        r"--chunk-overlap shapes chunks: give --chunk-size \(or --late-chunking\) with it",
        absent=("report",),
    ),
    Row(
        "evaluate",
        "evaluate --chunk-size without --beir",
        _evaluate("--chunk-size", "8", "--tasks", "stsb", beir=False),
        r"--chunk-size and --late-chunking shape the documents of --beir folders: give --beir FOLDER",
        absent=("report",),
    ),
    Row(
        "evaluate",
        "evaluate a SPLADE folder with --chunk-size",
        _evaluate("--chunk-size", "8", model=SPLADE),
        r"bert_splade_max: a SPLADE model encodes each document whole; --chunk-size is for dense and ColBERT",
        absent=("report",),
    ),
    Row(
        "evaluate",
        "evaluate a SPLADE folder on STS-B",
        _evaluate("--tasks", "stsb", model=SPLADE, beir=False),
        r"bert_splade_max: a SPLADE or ColBERT model is measured on --beir folders \(retrieval\) alone; --tasks stsb",
        absent=("report",),
    ),
    Row(
        "evaluate",
        "evaluate a ColBERT folder with --late-chunking",
        _evaluate("--late-chunking", model=COLBERT),
        r"bert_colbert: a ColBERT document keeps its windows' token vectors; --late-chunking is for a dense model",
        absent=("report",),
    ),
]
