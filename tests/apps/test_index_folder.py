"""An index folder: build writes the hashed encoder, codes, vectors, corpus and meta
together; opening checks they agree; search finds a corpus line as its own nearest."""

import json
from pathlib import Path

import numpy as np
import pytest

from keras_sentemb.apps.index_folder import FILES, IndexFolder, build_index_folder, read_meta
from keras_sentemb.retrieval import faiss_available
from keras_sentemb.utils.output_targets import MARKER_FILE
from tests.conftest import make_tiny_encoder

# A carriage return inside a line stays in it (written and read back byte for byte).
CORPUS = ["the cat sat on the mat .", "a dog ran fast", "rain and storm", "hello world", "the oven\rbread"]


@pytest.fixture(scope="module")
def index(tmp_path_factory):
    root = tmp_path_factory.mktemp("index")
    model = root / "tiny.keras"
    make_tiny_encoder(seed=6).save(model)
    folder = build_index_folder(CORPUS, root / "idx", model=str(model), bits=64, epochs=1, progress=False)
    return root, Path(folder)


def test_build_writes_every_file_and_the_meta(index):
    _, folder = index
    assert sorted(p.name for p in folder.iterdir()) == sorted([*FILES, MARKER_FILE])
    meta = read_meta(folder)
    assert (meta["bits"], meta["lines"]) == (64, len(CORPUS))


def test_a_corpus_line_is_its_own_nearest_neighbour(index):
    _, folder = index
    opened = IndexFolder(folder)
    assert opened.corpus == CORPUS
    scores, ids = opened.search([CORPUS[2]], k=10, rerank=2)
    assert ids.shape == (1, len(CORPUS)) and ids[0, 0] == 2
    np.testing.assert_allclose(scores[0, 0], 1.0, atol=1e-5)


def test_a_corpus_line_with_a_newline_is_refused_before_any_work(tmp_path):
    with pytest.raises(ValueError, match="corpus line 1 contains a newline"):
        build_index_folder(["one", "two\nthree"], tmp_path / "idx", model=object())


def test_an_existing_folder_is_kept_unless_overwrite(index):
    root, folder = index
    with pytest.raises(FileExistsError):
        build_index_folder(CORPUS, folder, model=str(root / "tiny.keras"), bits=64, epochs=1, progress=False)


def test_a_folder_missing_a_file_or_disagreeing_in_size_is_refused(index, tmp_path):
    _, folder = index
    with pytest.raises(FileNotFoundError, match="not an index folder"):
        IndexFolder(tmp_path)
    copy = tmp_path / "copy"
    copy.mkdir()
    for name in FILES:
        (copy / name).write_bytes((folder / name).read_bytes())
    meta = json.loads((copy / "meta.json").read_text())
    (copy / "meta.json").write_text(json.dumps({**meta, "lines": meta["lines"] + 1}))
    with pytest.raises(ValueError, match="corpus.txt has 5 lines, meta.json says 6"):
        IndexFolder(copy)
    with pytest.raises(ValueError, match="no queries"):
        IndexFolder(folder).search([])


@pytest.mark.skipif(not faiss_available(), reason="kind='hnsw' is a FAISS index")
def test_a_graph_index_folder_records_its_kind_and_finds_a_line_as_its_own_nearest(index, tmp_path):
    root, _ = index
    folder = build_index_folder(
        CORPUS,
        tmp_path / "graph",
        model=str(root / "tiny.keras"),
        bits=64,
        epochs=1,
        progress=False,
        kind="hnsw",
        index_parameters={"ef_search": 16},
    )
    meta = read_meta(folder)
    assert meta["kind"] == "hnsw" and meta["index_parameters"]["ef_search"] == 16
    opened = IndexFolder(folder)
    assert opened.index.kind == "hnsw"
    distances, ids = opened.search([CORPUS[3]], k=2)
    assert ids[0, 0] == 3 and distances[0, 0] == 0


def test_a_bad_index_kind_or_parameter_fails_before_any_encoding(tmp_path):
    with pytest.raises(ValueError, match="takes no parameter 'nprobe'"):
        build_index_folder(CORPUS, tmp_path / "idx", model=object(), kind="hnsw", index_parameters={"nprobe": 3})
    assert not (tmp_path / "idx").exists()


DOCUMENTS = [
    "the cat sat on the mat . a dog ran fast . hello world . rain and storm .",
    "bread in the oven . the oven was hot . play with the cat .",
    "a storm . rain . the dog ran . straße cafe .",
]


@pytest.fixture(scope="module")
def chunked(tmp_path_factory):
    from keras_sentemb.chunking import Chunking

    root = tmp_path_factory.mktemp("chunked")
    encoder = make_tiny_encoder(seed=6)
    folder = build_index_folder(
        DOCUMENTS, root / "idx", model=encoder, bits=64, epochs=1, progress=False, chunking=Chunking(size=5)
    )
    return encoder, Path(folder)


def test_a_chunked_folder_maps_chunks_to_lines_and_spans(chunked):
    encoder, folder = chunked
    opened = IndexFolder(folder)
    meta = read_meta(folder)
    assert meta["chunking"]["size"] == 5 and meta["chunks"] == len(opened.index) > len(DOCUMENTS)
    np.testing.assert_array_equal(np.unique(opened.chunks["document"]), np.arange(len(DOCUMENTS)))
    assert opened.chunk_text(0) == "the cat sat on the"


@pytest.mark.parametrize("rerank", [0, 2])
def test_a_chunked_folder_returns_each_line_once_scored_by_its_best_chunk(chunked, rerank):
    encoder, folder = chunked
    opened = IndexFolder(folder)
    scores, ids, chunks = opened.search_documents(["a dog ran fast"], k=3, rerank=rerank)
    assert sorted(ids[0].tolist()) == [0, 1, 2]
    np.testing.assert_array_equal(opened.chunks["document"][chunks[0]], ids[0])
    if rerank:  # cosine of each line's best chunk, best first
        query = encoder.encode(["a dog ran fast"])[0]
        for line, score in zip(ids[0], scores[0]):
            best = max(float(query @ opened.embeddings[c]) for c in np.flatnonzero(opened.chunks["document"] == line))
            assert score == pytest.approx(best, abs=1e-5)
        assert list(scores[0]) == sorted(scores[0], reverse=True)
    else:  # Hamming distance of each line's best chunk, nearest first
        assert list(scores[0]) == sorted(scores[0])


@pytest.fixture(scope="module")
def with_lexical(tmp_path_factory):
    root = tmp_path_factory.mktemp("lexical_index")
    model = root / "tiny.keras"
    make_tiny_encoder(seed=6).save(model)
    lines = ["statins lower cholesterol", "asthma attacks and diet", "breast cancer cells", "rain and storm"]
    folder = build_index_folder(lines, root / "idx", model=str(model), bits=64, epochs=1, progress=False, lexical=True)
    return Path(folder), lines


def test_a_lexical_index_is_kept_beside_the_codes_and_searches_hybrid(with_lexical):
    folder, lines = with_lexical
    opened = IndexFolder(folder)
    assert opened.lexical is not None and len(opened.lexical) == len(lines)
    query = "cholesterol of statins"
    scores, ids = opened.search_hybrid([query], k=3, rerank=2)
    _, dense_ids, _ = opened.search_documents([query], k=len(lines), rerank=2)
    lexical_ids, _ = opened.lexical.search([query], top_k=len(lines))
    assert lexical_ids[0].tolist() == [0, -1, -1, -1]  # only line 0 shares a term
    expected = {line: 1 / (60 + rank) for rank, line in enumerate(dense_ids[0].tolist(), start=1)}
    expected[0] += 1 / 61
    best = sorted(expected, key=lambda line: (-expected[line], -line))[:3]
    assert ids[0].tolist() == best and ids[0, 0] == 0
    np.testing.assert_allclose(scores[0], [expected[line] for line in best], rtol=1e-6)


def test_a_lexical_index_of_other_lines_is_refused_when_the_folder_opens(with_lexical, tmp_path):
    import shutil

    from keras_sentemb.retrieval.lexical_index import LexicalIndex

    folder, lines = with_lexical
    copy = Path(shutil.copytree(folder, tmp_path / "copy"))
    shutil.rmtree(copy / "lexical")
    LexicalIndex([*lines[:-1], "sunshine"]).save(copy / "lexical")
    with pytest.raises(ValueError, match="indexes other documents"):
        IndexFolder(copy)


def test_a_folder_without_a_lexical_index_says_so_when_asked_for_a_hybrid_search(index):
    _, folder = index
    with pytest.raises(ValueError, match="has no lexical index"):
        IndexFolder(folder).search_hybrid(["rain"], k=2)


def test_a_reranker_reorders_each_querys_hit_lines_and_keeps_missing_hits_last(index):
    from tests.evaluation.fake_encoders import TrigramPairScorer

    _, folder = index
    opened, scorer = IndexFolder(folder), TrigramPairScorer(dim=64)
    queries = ["the cat on a mat", "storm"]
    ids = np.array([[1, 0, 3], [2, -1, 4]])
    scores, reordered = opened.rerank_hits(queries, ids, scorer)
    for row, query in enumerate(queries):
        hits = [line for line in ids[row] if line >= 0]
        expected = sorted(hits, key=lambda line: -scorer.predict_pairs([query], [CORPUS[line]])[0])
        assert reordered[row][: len(hits)].tolist() == expected
    assert reordered[1, -1] == -1 and scores[1, -1] == -np.inf
    assert list(scores[0]) == sorted(scores[0], reverse=True)
    with pytest.raises(ValueError, match="one score a pair"):
        opened.rerank_hits(queries, ids, TrigramPairScorer(labels=2))
