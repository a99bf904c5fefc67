"""`keras-sentemb index build --kind multi-vector` and `index search` of such a folder: the hits are MaxSim's over the
model's `encode_query` / `encode_document` token vectors, printed as lines or JSON."""

import json
import os

import numpy as np
import pytest

from keras_sentemb.apps.cli import main
from keras_sentemb.apps.multi_vector_index_folder import MultiVectorIndexFolder
from keras_sentemb.models import MultiVectorEncoder
from keras_sentemb.retrieval.multi_vector_index import MultiVectorIndex
from tests.hostile_inputs import CORPUS, FIXTURES

MODEL = os.path.join(FIXTURES, "multi_vector_folders", "bert_colbert")


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    work = tmp_path_factory.mktemp("multi-vector-cli")
    corpus = work / "corpus.txt"
    corpus.write_text("\n".join(CORPUS) + "\n", encoding="utf-8")
    folders = {}
    for engine in ("exact", "faiss"):
        folders[engine] = work / engine
        argv = ["index", "build", str(corpus), "-o", str(folders[engine]), "--kind", "multi-vector", "--model", MODEL]
        assert main([*argv, "--engine", engine]) == 0
    return folders


def test_the_hits_are_maxsim_over_the_models_token_vectors(built, capsys):
    capsys.readouterr()
    assert main(["index", "search", str(built["exact"]), "--query", "a cat sat", "--top-k", "3", "--json"]) == 0
    (line,) = capsys.readouterr().out.splitlines()
    hits = json.loads(line)["hits"]
    encoder = MultiVectorEncoder.from_pretrained(MODEL)
    index = MultiVectorIndex(encoder.encode_document(CORPUS))
    ids, scores = index.search(encoder.encode_query(["a cat sat"]), 3)
    assert [hit["line"] - 1 for hit in hits] == ids[0].tolist()
    np.testing.assert_allclose([hit["maxsim"] for hit in hits], scores[0], atol=1e-4)


def test_a_faiss_folder_searches_as_the_exact_one_on_a_tiny_corpus(built, capsys):
    queries = ["the cat", "bread in the oven", "storm"]
    faiss, exact = MultiVectorIndexFolder(built["faiss"]), MultiVectorIndexFolder(built["exact"])
    np.testing.assert_array_equal(faiss.search(queries, 3)[1], exact.search(queries, 3)[1])
    assert main(["index", "search", str(built["faiss"]), "--query", "storm", "--nprobe", "2", "--exact"]) == 0
    assert "maxsim" in capsys.readouterr().out


def test_overwrite_replaces_only_a_folder_it_wrote(built, tmp_path):
    corpus = tmp_path / "corpus.txt"
    corpus.write_text("one line\n", encoding="utf-8")
    argv = ["index", "build", str(corpus), "-o", str(built["exact"]), "--kind", "multi-vector", "--model", MODEL]
    assert main([*argv, "--engine", "exact", "--overwrite"]) == 0
    assert MultiVectorIndexFolder(built["exact"]).corpus == ["one line"]
    keep = tmp_path / "mine"
    keep.mkdir()
    (keep / "notes.txt").write_text("mine")
    argv = ["index", "build", str(corpus), "-o", str(keep), "--kind", "multi-vector", "--model", MODEL, "--overwrite"]
    assert main(argv) == 2
    assert (keep / "notes.txt").read_text() == "mine"
