"""Bulk embedding on Apache Beam (DirectRunner): the rows written equal `encode` / `hash`."""

import os

import numpy as np
import pytest

from keras_sentemb.apps.cli import main
from keras_sentemb.apps.saved_model_folder import serving_folder
from keras_sentemb.beam import read_embedding_records, run_embed_corpus
from keras_sentemb.export import export_saved_model
from keras_sentemb.training import distill_hashed_encoder
from tests.conftest import make_tiny_encoder

PART_A = ["the cat sat on the mat", "", "a dog ran fast", "   ", "hello world"]
PART_B = ["rain and storm", "the oven bread", "caf\u00e9 stra\u00dfe", "a cat ran"]


@pytest.fixture(scope="module")
def hashed_export(tmp_path_factory):
    encoder = make_tiny_encoder(seed=8)
    hashed = distill_hashed_encoder(
        encoder, encoder.encode(PART_A + PART_B), bits=64, epochs=1, batch_size=8, verbose=0
    )
    folder = export_saved_model(hashed, tmp_path_factory.mktemp("served") / "tiny", version=3)
    return hashed, folder


@pytest.fixture()
def corpus(tmp_path):
    folder = tmp_path / "corpus"
    folder.mkdir()
    (folder / "a.txt").write_text("\n".join(PART_A) + "\n", encoding="utf-8")
    # invalid UTF-8 in a line must not fail the read: the model replaces it
    (folder / "b.txt").write_bytes("\n".join(PART_B).encode("utf-8") + b"\nbad \xff byte\n")
    return folder


def expected_rows(folder):
    rows = {}
    for name, lines in (("a.txt", PART_A), ("b.txt", PART_B + ["bad \ufffd byte"])):
        for number, text in enumerate(lines, start=1):
            if text.strip():
                rows[f"{folder / name}:{number}"] = text
    return rows


def test_parquet_rows_hold_the_encode_vectors_and_hash_codes_of_every_line(hashed_export, corpus, tmp_path):
    hashed, model_dir = hashed_export
    summary = run_embed_corpus(
        model_dir, [str(corpus / "*.txt")], str(tmp_path / "out" / "corpus"), num_shards=2, batch_size=3
    )
    assert len(summary["files"]) == 2 and all(f.endswith(".parquet") for f in summary["files"])
    assert summary["sentences"] == 8 and summary["blank_lines"] == 2
    ids, embeddings, codes = read_embedding_records(str(tmp_path / "out" / "corpus-*.parquet"))
    want = expected_rows(corpus)
    assert sorted(ids) == sorted(want)
    texts = [want[i] for i in ids]
    np.testing.assert_allclose(embeddings, hashed.encode(texts), atol=1e-5)
    np.testing.assert_array_equal(codes, hashed.hash(texts))
    # a second run under the same prefix: refused, or with overwrite the old shards are replaced
    with pytest.raises(FileExistsError, match="earlier run"):
        run_embed_corpus(model_dir, [str(corpus / "a.txt")], str(tmp_path / "out" / "corpus"))
    again = run_embed_corpus(
        model_dir, [str(corpus / "a.txt")], str(tmp_path / "out" / "corpus"), num_shards=1, overwrite=True
    )
    assert [os.path.basename(f) for f in again["files"]] == ["corpus-00000-of-00001.parquet"]
    assert len(read_embedding_records(str(tmp_path / "out" / "corpus-*.parquet"))[0]) == 3


def test_cli_writes_tfrecord_shards_from_the_export_base_folder(hashed_export, corpus, tmp_path, capsys):
    hashed, model_dir = hashed_export
    base = os.path.dirname(model_dir)  # the highest version folder inside is used
    (corpus / "ids.tsv").write_text("q1\tthe dog sat\nq2\thello cat\n", encoding="utf-8")
    status = main(
        [
            "embed-corpus",
            base,
            str(corpus / "ids.tsv"),
            "-o",
            str(tmp_path / "rec"),
            "--format",
            "tfrecord",
            "--ids-in-first-column",
            "--no-codes",
            "--direct_num_workers=1",
            "--progress",
        ]
    )
    assert status == 0
    printed = capsys.readouterr()
    assert "wrote 2 rows" in printed.out and "embedded: " in printed.err  # the progress bar
    ids, embeddings, codes = read_embedding_records(str(tmp_path / "rec-*.tfrecord"))
    assert ids == ["q1", "q2"] and codes is None
    np.testing.assert_allclose(embeddings, hashed.encode(["the dog sat", "hello cat"]), atol=1e-5)


def test_bad_inputs_fail_with_clear_errors(hashed_export, corpus, tmp_path):
    _, model_dir = hashed_export
    with pytest.raises(FileNotFoundError, match="not a SavedModel folder"):
        run_embed_corpus(str(tmp_path), [str(corpus / "a.txt")], str(tmp_path / "x"))
    with pytest.raises(ValueError, match="export it first"):
        serving_folder("minilm-l6", runner="DataflowRunner")
    (corpus / "bad.tsv").write_text("q1\tfine\nno tab here\n", encoding="utf-8")
    with pytest.raises(Exception, match=r"bad\.tsv:2: expected `id<TAB>text`"):
        run_embed_corpus(model_dir, [str(corpus / "bad.tsv")], str(tmp_path / "y"), ids_in_first_column=True)
    with pytest.raises(FileNotFoundError, match="no files match .*missing-"):
        run_embed_corpus(model_dir, [str(corpus / "missing-*.txt")], str(tmp_path / "z"))
    with pytest.raises(ValueError, match="output_format"):
        run_embed_corpus(model_dir, [str(corpus / "a.txt")], str(tmp_path / "w"), output_format="csv")


def test_chunked_lines_write_one_row_a_chunk_equal_to_encode_with_chunking(corpus, tmp_path):
    import pyarrow.parquet as pq

    from keras_sentemb.chunking import Chunking

    encoder = make_tiny_encoder(seed=8)
    chunking = Chunking(size=3, overlap=1, pooling=None)
    model_dir = export_saved_model(encoder, tmp_path / "served", chunking=chunking)
    summary = run_embed_corpus(model_dir, [str(corpus / "*.txt")], str(tmp_path / "out" / "chunks"), chunks=True)
    want = expected_rows(corpus)
    ids = sorted(want)
    expected = encoder.encode([want[i] for i in ids], chunking=chunking)
    assert summary["sentences"] == 8 and summary["chunks"] == summary["vectors_written"] == len(expected)
    table = pq.read_table(summary["files"]).to_pydict()
    rows = {row_id: (vector, start, end) for row_id, vector, start, end in zip(*table.values())}
    for k, (document, start, end) in enumerate(zip(expected.document, expected.piece_start, expected.piece_end)):
        number = int(np.sum(expected.document[:k] == document))  # the chunk's number within its line
        vector, got_start, got_end = rows[f"{ids[document]}#{number}"]
        np.testing.assert_allclose(vector, expected.vectors[k], atol=1e-5)
        assert (got_start, got_end) == (start, end)
    plain = export_saved_model(encoder, tmp_path / "plain")
    with pytest.raises(ValueError, match="no `chunks` signature"):
        run_embed_corpus(plain, [str(corpus / "a.txt")], str(tmp_path / "x"), chunks=True)
