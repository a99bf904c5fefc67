"""Hostile inputs of learned sparse retrieval (issue 99): `SPARSE_ROWS`, in the form of tests/hostile_inputs.py's
rows, run by tests/apps/test_hostile_sparse.py in-process and by benchmarks/hostile_inputs.py each in its own process.

A sparse folder that is not what it says (a head narrower than its tokenizer, a Router without a route, negative or
NaN static weights, a pooling it does not know), a corrupted sparse index folder, a 10 MB document, options of the
other index kind: one error line each, exit 2, nothing written.
"""

import json
import os
import shutil

import numpy as np

from tests.hostile_inputs import CORPUS, FIXTURES, Row, cli

SPARSE_FOLDERS = os.path.join(FIXTURES, "sparse_folders")


def sparse_index_folder(fixtures):
    """A sparse index folder of CORPUS (the inference-free fixture model, exact engine), built once."""
    from keras_sentemb.apps.sparse_index_folder import build_sparse_index_folder

    path = os.path.join(fixtures.root, "sparse-index")
    if not os.path.exists(path):
        build_sparse_index_folder(CORPUS, path, os.path.join(SPARSE_FOLDERS, "bert_inference_free"), engine="exact")
    return path


def _edit_json(path, change):
    with open(path, encoding="utf-8") as f:
        value = json.load(f)
    change(value)
    with open(path, "w", encoding="utf-8") as f:
        json.dump(value, f)


def _build_from(name, edit):
    """`index build --kind sparse` of the fixture corpus with a copy of sparse folder `name` after `edit`."""

    def argv(fixtures, work):
        model = shutil.copytree(os.path.join(SPARSE_FOLDERS, name), os.path.join(work, "model"))
        edit(model)
        return ["index", "build", fixtures.corpus_file, "-o", os.path.join(work, "out"), "--kind", "sparse",
                "--model", model, "--engine", "exact"]  # fmt: skip

    return cli(argv)


def _wider_tokenizer(model):
    def add(spec):
        spec["added_tokens"].append(
            {"id": 500, "content": "[WIDE]", "single_word": False, "lstrip": False, "rstrip": False,
             "normalized": False, "special": True}
        )  # fmt: skip

    _edit_json(os.path.join(model, "tokenizer.json"), add)


def _no_query_route(model):
    _edit_json(os.path.join(model, "router_config.json"), lambda config: config["structure"].pop("query"))


def _static_weight(value):
    def edit(model):
        from safetensors.numpy import save_file

        weight = np.ones(500, np.float32)
        weight[9] = value
        save_file({"weight": weight}, os.path.join(model, "query_0_SparseStaticEmbedding", "model.safetensors"))

    return edit


def _unknown_pooling(model):
    _edit_json(os.path.join(model, "1_SpladePooling", "config.json"), lambda c: c.update(pooling_strategy="mean"))


def _search_changed(edit):
    def argv(fixtures, work):
        folder = shutil.copytree(sparse_index_folder(fixtures), os.path.join(work, "idx"))
        edit(folder)
        return ["index", "search", folder, "--query", "a cat"]

    return cli(argv)


def _tampered_vectors(folder):
    with open(os.path.join(folder, "sparse", "vectors.npz"), "r+b") as f:
        f.seek(60)
        f.write(b"\xff\xfe")


def _tampered_model(folder):
    with open(os.path.join(folder, "sparse_encoder.keras"), "ab") as f:
        f.write(b"\x00")


def _huge_document(fixtures, work):
    path = os.path.join(work, "huge.txt")
    with open(path, "w", encoding="utf-8") as f:
        f.write("a short line\n" + "word " * (2 * 1024 * 1024) + "\n")
    model = os.path.join(SPARSE_FOLDERS, "bert_splade_max")
    return ["index", "build", path, "-o", os.path.join(work, "out"), "--kind", "sparse", "--model", model]


SPARSE_ROWS = [
    Row(
        "sparse",
        "a sparse folder whose tokenizer is wider than its masked-LM head",
        _build_from("bert_splade_max", _wider_tokenizer),
        r"the tokenizer has ids up to 500, the masked-LM head 500 vocabulary entries",
        absent=("out",),
    ),
    Row(
        "sparse",
        "an inference-free folder whose Router has no query route",
        _build_from("bert_inference_free", _no_query_route),
        r"router_config\.json: the Router has no 'query' route",
        absent=("out",),
    ),
    Row(
        "sparse",
        "negative static weights",
        _build_from("bert_inference_free", _static_weight(-0.5)),
        r"1 static weight\(s\) are negative, NaN or infinite \(the first: token id 9, -0\.5\)",
        absent=("out",),
    ),
    Row(
        "sparse",
        "a NaN static weight",
        _build_from("bert_inference_free", _static_weight(np.nan)),
        r"the first: token id 9, nan",
        absent=("out",),
    ),
    Row(
        "sparse",
        "a SpladePooling of a strategy it does not know",
        _build_from("bert_splade_max", _unknown_pooling),
        r"1_SpladePooling/config\.json: pooling_strategy 'mean' is not supported",
        absent=("out",),
    ),
    Row(
        "sparse",
        "a sparse index folder whose vectors were changed",
        _search_changed(_tampered_vectors),
        r"sparse/vectors\.npz: its sha256 differs from sparse\.json's",
    ),
    Row(
        "sparse",
        "a sparse index folder whose model file was changed",
        _search_changed(_tampered_model),
        r"sparse_encoder\.keras: its sha256 differs from meta\.json's",
    ),
    Row(
        "sparse",
        "a 10 MB document",
        cli(_huge_document),
        r"corpus line 2: 10,485,760 bytes, over the 1,048,576 a document may hold",
        kept=("huge.txt",),
        absent=("out",),
    ),
    Row(
        "sparse",
        "a binary-code option with --kind sparse",
        cli(
            lambda fixtures, work: [
                "index",
                "build",
                fixtures.corpus_file,
                "-o",
                os.path.join(work, "out"),
                "--kind",
                "sparse",
                "--model",
                os.path.join(SPARSE_FOLDERS, "bert_splade_max"),
                "--lexical",
            ]
        ),  # fmt: skip
        r"--lexical is for a binary-code index, not --kind sparse",
        absent=("out",),
    ),
    Row(
        "sparse",
        "index search --hybrid of a sparse folder",
        cli(lambda fixtures, work: ["index", "search", sparse_index_folder(fixtures), "--query", "cat", "--hybrid"]),
        r"--rerank, --hybrid, --reranker, --nprobe and --ef-search are for binary-code index folders",
    ),
]
