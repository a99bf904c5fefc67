"""`keras-sentemb index build|search` and `export --hashed --code-table`."""

import json
import os

import pytest

from keras_sentemb.apps.cli import main
from keras_sentemb.retrieval import faiss_available
from tests.conftest import FIXTURES, make_tiny_encoder

CORPUS = [
    "the cat sat on the mat .",
    "a dog ran fast",
    "rain and storm",
    "hello world",
    "the oven bread",
    "a cat ran",
    "the dog sat",
    "hello cat",
    "rain on the mat",
]


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    root = tmp_path_factory.mktemp("index_cli")
    model = root / "tiny.keras"
    make_tiny_encoder(seed=6).save(model)
    corpus = root / "corpus.txt"
    corpus.write_text("\n".join(CORPUS) + "\n", encoding="utf-8")
    folder = root / "idx"
    assert (
        main(["index", "build", str(corpus), "-o", str(folder), "--model", str(model), "--bits", "64", "--epochs", "2"])
        == 0
    )
    return root, folder


def test_build_writes_an_index_folder(built):
    _, folder = built
    assert sorted(os.listdir(folder)) == [
        ".keras-sentemb",
        "corpus.txt",
        "embeddings.npy",
        "hashed_encoder.keras",
        "index.npz",
        "meta.json",
    ]
    meta = json.loads((folder / "meta.json").read_text())
    assert meta["bits"] == 64 and meta["lines"] == len(CORPUS)


def test_search_finds_an_exact_line_at_hamming_distance_zero(built, capsys):
    _, folder = built
    capsys.readouterr()
    assert main(["index", "search", str(folder), "--query", "a dog ran fast", "--top-k", "3", "--json"]) == 0
    hits = json.loads(capsys.readouterr().out.strip())["hits"]
    assert len(hits) == 3 and hits[0]["hamming"] == 0
    assert any(hit["line"] == 2 for hit in hits if hit["hamming"] == 0)


def test_rerank_puts_the_exact_line_first_with_cosine_one(built, capsys):
    _, folder = built
    capsys.readouterr()
    assert main(["index", "search", str(folder), "--query", "hello world", "--top-k", "2", "--rerank", "5"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "query: hello world"
    assert lines[1].strip().startswith("1. cosine 1.0000") and lines[1].endswith("[line 4] hello world")


def test_top_k_larger_than_the_corpus_returns_the_whole_corpus(built, capsys):
    _, folder = built
    capsys.readouterr()
    assert main(["index", "search", str(folder), "--query", "cat", "--top-k", "50", "--json"]) == 0
    assert len(json.loads(capsys.readouterr().out)["hits"]) == len(CORPUS)


def test_a_lexical_folder_searches_hybrid_and_a_plain_one_says_it_cannot(built, capsys, tmp_path):
    root, folder = built
    lexical = tmp_path / "lexical_index"
    argv = ["index", "build", str(root / "corpus.txt"), "-o", str(lexical), "--model", str(root / "tiny.keras")]
    assert main([*argv, "--bits", "64", "--epochs", "1", "--lexical"]) == 0
    assert "and a BM25 index" in capsys.readouterr().out and (lexical / "lexical" / "lexical.json").is_file()
    assert main(["index", "search", str(lexical), "--query", "oven bread", "--hybrid", "--json"]) == 0
    hits = json.loads(capsys.readouterr().out)["hits"]
    assert hits[0]["line"] == 5 and hits[0]["rrf"] > 1 / 61  # the only line sharing a term is in both runs
    assert main(["index", "search", str(folder), "--query", "cat", "--hybrid"]) == 2
    assert "has no lexical index" in capsys.readouterr().err


def test_a_cross_encoder_reorders_the_hits(built, capsys, tmp_path):
    from tests.conftest import make_tiny_cross_encoder

    _, folder = built
    reranker = tmp_path / "reranker.keras"
    make_tiny_cross_encoder(seed=4).save(reranker)
    capsys.readouterr()
    argv = ["index", "search", str(folder), "--query", "a cat", "--top-k", "4", "--json", "--reranker", str(reranker)]
    assert main(argv) == 0
    hits = json.loads(capsys.readouterr().out)["hits"]
    assert len(hits) == 4 and [hit["reranker"] for hit in hits] == sorted(
        (hit["reranker"] for hit in hits), reverse=True
    )


def test_export_with_the_hashed_model_and_code_table(built, capsys):
    root, folder = built
    base = root / "serving"
    assert (
        main(["export", str(base), "--hashed", str(folder / "hashed_encoder.keras"), "--code-table", str(folder)]) == 0
    )
    assert "signatures: serving_default, hash, embed_and_hash, search" in capsys.readouterr().out


def test_errors_exit_with_status_2(built, tmp_path, capsys):
    root, folder = built
    assert main(["index", "build", str(root / "corpus.txt"), "-o", str(folder)]) == 2
    assert "exists" in capsys.readouterr().err
    assert main(["index", "search", str(tmp_path), "--query", "x"]) == 2
    assert "not an index folder" in capsys.readouterr().err
    assert main(["index", "search", str(folder)]) == 2
    assert "at least one --query" in capsys.readouterr().err
    assert main(["index", "search", str(folder), "--query", "x", "--top-k", "0"]) == 2
    empty = tmp_path / "empty.txt"
    empty.write_text("")
    assert main(["index", "build", str(empty), "-o", str(tmp_path / "i")]) == 2
    assert "corpus is empty" in capsys.readouterr().err
    assert main(["export", str(tmp_path / "s"), "--code-table", str(folder)]) == 2


def test_evaluate_a_hashed_model_adds_hamming_correlations(built, tmp_path, capsys):
    _, folder = built
    sts = os.path.join(FIXTURES, "eval_tasks", "sts")
    assert (
        main(
            [
                "evaluate",
                str(folder / "hashed_encoder.keras"),
                "--tasks",
                "sts-dir",
                "--sts-dir",
                sts,
                "-o",
                str(tmp_path),
                "--no-plots",
            ]
        )
        == 0
    )
    report = json.loads((tmp_path / "report.json").read_text(encoding="utf-8"))
    assert report["model_info"]["class"] == "HashedEncoder" and report["model_info"]["bits"] == 64
    assert "hamming_spearman" in report["tasks"][0]["metrics"]


@pytest.mark.skipif(not faiss_available(), reason="--kind hnsw is a FAISS index")
def test_build_and_search_a_graph_index_with_its_search_beam(built, tmp_path, capsys):
    root, _ = built
    folder = tmp_path / "graph"
    model = str(root / "tiny.keras")
    command = ["index", "build", str(root / "corpus.txt"), "-o", str(folder), "--model", model, "--bits", "64"]
    assert main([*command, "--epochs", "1", "--kind", "hnsw", "--ef-search", "8"]) == 0
    assert "64-bit codes, hnsw index" in capsys.readouterr().out
    assert json.loads((folder / "meta.json").read_text())["index_parameters"]["ef_search"] == 8
    search = ["index", "search", str(folder), "--query", "a dog ran fast", "--json"]
    assert main([*search, "--ef-search", "4"]) == 0
    hits = json.loads(capsys.readouterr().out)["hits"]
    assert hits[0]["hamming"] == 0 and any(hit["line"] == 2 for hit in hits if hit["hamming"] == 0)
    assert main([*search, "--nprobe", "4"]) == 2
    assert "kind='hnsw' has no search parameter 'nprobe'" in capsys.readouterr().err
    assert main([*command, "--kind", "ivf", "--hnsw-m", "4", "-o", str(tmp_path / "bad")]) == 2
    assert "kind='ivf' takes no parameter 'hnsw_m'" in capsys.readouterr().err
    assert not (tmp_path / "bad").exists()
    # the SavedModel's in-graph search is flat: it takes the graph index's codes
    assert (
        main(
            [
                "export",
                str(tmp_path / "s"),
                "--hashed",
                str(folder / "hashed_encoder.keras"),
                "--code-table",
                str(folder),
            ]
        )
        == 0
    )


def test_a_chunked_index_returns_lines_with_their_best_chunk(built, tmp_path, capsys):
    root, _ = built
    corpus = tmp_path / "documents.txt"
    corpus.write_text(" . ".join(CORPUS[:5]) + "\n" + " . ".join(CORPUS[5:]) + "\n", encoding="utf-8")
    folder = tmp_path / "chunked"
    command = ["index", "build", str(corpus), "-o", str(folder), "--model", str(root / "tiny.keras")]
    assert main(command + ["--bits", "64", "--epochs", "1", "--chunk-size", "4", "--chunk-sentences"]) == 0
    assert "2 lines (" in capsys.readouterr().out
    assert (
        main(["index", "search", str(folder), "--query", "rain and storm", "--top-k", "2", "--rerank", "2", "--json"])
        == 0
    )
    hits = json.loads(capsys.readouterr().out.strip().splitlines()[-1])["hits"]
    assert sorted(hit["line"] for hit in hits) == [1, 2]
    assert all(len(hit["text"].split()) <= 5 for hit in hits)  # a chunk, not the whole line
