"""Hostile inputs of late interaction (issue 100): `MULTI_VECTOR_ROWS`, in the form of tests/hostile_inputs.py's rows,
run by tests/apps/test_hostile_multi_vector.py in-process and by benchmarks/hostile_inputs.py each in its own process.

A ColBERT folder that is not what it says (a projection that does not take the hidden size, a query length of 0 or
10^9, markers missing from the vocabulary), indexed or exported (alone or in a TF Serving bundle), a corrupted multi-vector index folder, an empty document, options of the
other index kinds: one error line each, exit 2, nothing written.
"""

import json
import os
import shutil

from tests.hostile_inputs import CORPUS, FIXTURES, Row, cli

MULTI_VECTOR_FOLDERS = os.path.join(FIXTURES, "multi_vector_folders")


def multi_vector_index_folder(fixtures):
    """A multi-vector index folder of CORPUS (the BERT ColBERT fixture, FAISS engine), built once."""
    from keras_sentemb.apps.multi_vector_index_folder import build_multi_vector_index_folder

    path = os.path.join(fixtures.root, "multi-vector-index")
    if not os.path.exists(path):
        build_multi_vector_index_folder(CORPUS, path, os.path.join(MULTI_VECTOR_FOLDERS, "bert_colbert"))
    return path


def _edit_json(path, change):
    with open(path, encoding="utf-8") as f:
        value = json.load(f)
    change(value)
    with open(path, "w", encoding="utf-8") as f:
        json.dump(value, f)


def _build_from(name, edit):
    """`index build --kind multi-vector` of the fixture corpus with a copy of folder `name` after `edit`."""

    def argv(fixtures, work):
        model = shutil.copytree(os.path.join(MULTI_VECTOR_FOLDERS, name), os.path.join(work, "model"))
        edit(model)
        return ["index", "build", fixtures.corpus_file, "-o", os.path.join(work, "out"), "--kind", "multi-vector",
                "--model", model]  # fmt: skip

    return cli(argv)


def _export_from(name, edit, bundle=False):
    """`export` (or `export --serving`, beside a good ColBERT folder) of a copy of folder `name` after `edit`."""

    def argv(fixtures, work):
        model = shutil.copytree(os.path.join(MULTI_VECTOR_FOLDERS, name), os.path.join(work, "model"))
        edit(model)
        if bundle:
            return ["export", "--serving", os.path.join(work, "out"), os.path.join(MULTI_VECTOR_FOLDERS, name), model]
        return ["export", os.path.join(work, "out"), "--model", model]

    return cli(argv)


def _projection_width(model):
    _edit_json(os.path.join(model, "1_Dense", "config.json"), lambda config: config.update(in_features=48))


def _expansion_length(value):
    return lambda model: _edit_json(
        os.path.join(model, "sentence_bert_config.json"), lambda config: config["query_expansion"].update(length=value)
    )


def _missing_marker(model):
    _edit_json(os.path.join(model, "config_sentence_transformers.json"), lambda c: c.update(query_prefix="[unused0] "))


def _search_changed(edit):
    def argv(fixtures, work):
        folder = shutil.copytree(multi_vector_index_folder(fixtures), os.path.join(work, "idx"))
        edit(folder)
        return ["index", "search", folder, "--query", "a cat"]

    return cli(argv)


def _tampered(name):
    def edit(folder):
        with open(os.path.join(folder, name), "r+b") as f:
            f.seek(80)
            f.write(b"\x13\x37")

    return edit


def _blank_line(fixtures, work):
    path = os.path.join(work, "blank.txt")
    with open(path, "w", encoding="utf-8") as f:
        f.write("a cat sat\n\nthe dog ran\n")
    model = os.path.join(MULTI_VECTOR_FOLDERS, "bert_colbert")
    return ["index", "build", path, "-o", os.path.join(work, "out"), "--kind", "multi-vector", "--model", model]


MULTI_VECTOR_ROWS = [
    Row(
        "multi-vector",
        "a ColBERT folder whose projection does not take the hidden size",
        _build_from("bert_colbert", _projection_width),
        r"1_Dense/config\.json: in_features=48, out_features=24 need linear\.weight of shape \(24, 48\)",
        absent=("out",),
    ),
    Row(
        "multi-vector",
        "a query expansion length of 0",
        _build_from("bert_colbert", _expansion_length(0)),
        r"sentence_bert_config\.json: query_expansion: length must be an integer in \[1, 1000000\], got 0",
        absent=("out",),
    ),
    Row(
        "multi-vector",
        "a query expansion length of 10^9",
        _build_from("bert_colbert", _expansion_length(10**9)),
        r"query_expansion: length must be an integer in \[1, 1000000\], got 1000000000",
        absent=("out",),
    ),
    Row(
        "multi-vector",
        "a PyLate folder whose query marker is not in the vocabulary",
        _build_from("bert_pylate", _missing_marker),
        r"the markers \['\[unused0\]'\] are not tokens of the vocabulary",
        absent=("out",),
    ),
    Row(
        "multi-vector",
        "export of a ColBERT folder whose query expansion length is 10^9",
        _export_from("bert_colbert", _expansion_length(10**9)),
        r"query_expansion: length must be an integer in \[1, 1000000\], got 1000000000",
        absent=("out",),
    ),
    Row(
        "multi-vector",
        "a TF Serving bundle with a PyLate folder whose query marker is not in the vocabulary",
        _export_from("bert_pylate", _missing_marker, bundle=True),
        r"the markers \['\[unused0\]'\] are not tokens of the vocabulary",
        absent=("out",),
    ),
    Row(
        "multi-vector",
        "a multi-vector index folder whose vectors were changed",
        _search_changed(_tampered(os.path.join("multi_vector", "vectors.npz"))),
        r"multi_vector/vectors\.npz: its sha256 differs from multi_vector\.json's",
    ),
    Row(
        "multi-vector",
        "a multi-vector index folder whose FAISS index was changed",
        _search_changed(_tampered(os.path.join("multi_vector", "tokens.faiss"))),
        r"multi_vector/tokens\.faiss: its sha256 differs from multi_vector\.json's",
    ),
    Row(
        "multi-vector",
        "a multi-vector index folder whose model file was changed",
        _search_changed(_tampered("multi_vector_encoder.keras")),
        r"multi_vector_encoder\.keras: its sha256 differs from meta\.json's",
    ),
    Row(
        "multi-vector",
        "an empty document",
        cli(_blank_line),
        r"corpus line 2 is empty: a multi-vector document is its tokens' vectors",
        kept=("blank.txt",),
        absent=("out",),
    ),
    Row(
        "multi-vector",
        "the sparse engine with --kind multi-vector",
        cli(
            lambda fixtures, work: [
                "index",
                "build",
                fixtures.corpus_file,
                "-o",
                os.path.join(work, "out"),
                "--kind",
                "multi-vector",
                "--model",
                os.path.join(MULTI_VECTOR_FOLDERS, "bert_colbert"),
                "--engine",
                "seismic",
            ]
        ),  # fmt: skip
        r"--engine seismic is not one of exact, faiss for --kind multi-vector",
        absent=("out",),
    ),
    Row(
        "multi-vector",
        "index search --hybrid of a multi-vector folder",
        cli(
            lambda fixtures, work: [
                "index",
                "search",
                multi_vector_index_folder(fixtures),
                "--query",
                "cat",
                "--hybrid",
            ]
        ),
        r"--rerank, --hybrid, --reranker and --ef-search are for binary-code index folders",
    ),
]
