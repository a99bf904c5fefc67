"""`keras-sentemb index build --kind sparse` and `index search` of such a folder: the hits are the SparseIndex's over
the model's `encode_query` / `encode_document` rows, printed as lines or JSON."""

import json
import os

import numpy as np
import pytest

from keras_sentemb.apps.cli import main
from keras_sentemb.apps.sparse_index_folder import SparseIndexFolder
from keras_sentemb.models import SparseEncoder
from keras_sentemb.retrieval.sparse_index import SparseIndex
from tests.hostile_inputs import CORPUS, FIXTURES

MODEL = os.path.join(FIXTURES, "sparse_folders", "bert_inference_free")


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    work = tmp_path_factory.mktemp("sparse-cli")
    corpus = work / "corpus.txt"
    corpus.write_text("\n".join(CORPUS) + "\n", encoding="utf-8")
    folders = {}
    for engine in ("exact", "seismic"):
        folders[engine] = work / engine
        argv = ["index", "build", str(corpus), "-o", str(folders[engine]), "--kind", "sparse", "--model", MODEL]
        assert main([*argv, "--engine", engine]) == 0
    return folders


def test_the_hits_are_the_sparse_index_search(built, capsys):
    capsys.readouterr()
    assert main(["index", "search", str(built["exact"]), "--query", "a cat sat", "--top-k", "3", "--json"]) == 0
    (line,) = capsys.readouterr().out.splitlines()
    hits = json.loads(line)["hits"]
    encoder = SparseEncoder.from_pretrained(MODEL)
    ids, scores = SparseIndex(encoder.encode_document(CORPUS)).search(encoder.encode_query(["a cat sat"]), 3)
    assert [hit["line"] - 1 for hit in hits] == [i for i in ids[0].tolist() if i >= 0]
    np.testing.assert_allclose([hit["dot"] for hit in hits], scores[0][: len(hits)], atol=1e-4)


def test_a_seismic_folder_searches_as_the_exact_one_on_a_tiny_corpus(built):
    queries = ["the cat", "bread in the oven", "storm"]
    seismic, exact = SparseIndexFolder(built["seismic"]), SparseIndexFolder(built["exact"])
    np.testing.assert_array_equal(seismic.search(queries, 3)[1], exact.search(queries, 3)[1])
    np.testing.assert_array_equal(seismic.search(queries, 3, engine="exact")[1], exact.search(queries, 3)[1])


def test_overwrite_replaces_only_a_folder_it_wrote(built, tmp_path):
    corpus = tmp_path / "corpus.txt"
    corpus.write_text("one line\n", encoding="utf-8")
    argv = ["index", "build", str(corpus), "-o", str(built["exact"]), "--kind", "sparse", "--model", MODEL]
    assert main([*argv, "--engine", "exact", "--overwrite"]) == 0
    assert SparseIndexFolder(built["exact"]).corpus == ["one line"]
    keep = tmp_path / "mine"
    keep.mkdir()
    (keep / "notes.txt").write_text("mine")
    assert (
        main(["index", "build", str(corpus), "-o", str(keep), "--kind", "sparse", "--model", MODEL, "--overwrite"]) == 2
    )
    assert (keep / "notes.txt").read_text() == "mine"
