"""read_beir_folder: the BEIR layout MTEB reads, and a clear rule for every awkward input."""

import json
import shutil
from pathlib import Path

import pytest

from keras_sentemb.data.beir_folder import read_beir_folder

TINY = Path(__file__).parents[1] / "fixtures" / "beir_tiny"


@pytest.fixture
def folder(tmp_path):
    copy = tmp_path / "collection"
    shutil.copytree(TINY, copy)
    return copy


def test_documents_are_title_space_text_stripped_and_queries_are_the_judged_ones():
    collection = read_beir_folder(TINY)
    assert len(collection.documents) == 12
    assert collection.documents[0] == (
        "Statins and breast cancer Statin use after diagnosis was linked to lower breast cancer mortality."
    )
    assert collection.documents[collection.document_ids.index("d5")].startswith("Green tea")  # no title
    assert collection.query_ids == ["q1", "q2", "q3", "q4"]  # q5 is judged by no line
    assert collection.qrels["q1"] == {"d2": 2, "d1": 1, "d8": 1}
    assert collection.qrels["q4"]["d5"] == 0


def test_an_empty_document_is_kept_as_the_empty_text_and_counted():
    collection = read_beir_folder(TINY)
    assert collection.documents[collection.document_ids.index("d9")] == ""
    assert collection.empty_documents == 1


def _append(path, line):
    with open(path, "a", encoding="utf-8") as f:
        f.write(line + "\n")


def test_a_duplicate_id_names_both_lines(folder):
    _append(folder / "corpus.jsonl", json.dumps({"_id": "d3", "text": "again"}))
    with pytest.raises(ValueError, match=r"corpus.jsonl:13: duplicate _id 'd3' \(first at line 3\)"):
        read_beir_folder(folder)


def test_a_judgement_of_an_unknown_document_is_an_error_or_dropped_on_request(folder):
    _append(folder / "qrels" / "test.tsv", "q1\tMED-404\t1")
    with pytest.raises(ValueError, match=r"test.tsv:13: document 'MED-404' not in the folder"):
        read_beir_folder(folder)
    collection = read_beir_folder(folder, unknown_ids="drop")
    assert collection.dropped_judgements == 1 and "MED-404" not in collection.qrels["q1"]


def test_a_judgement_of_an_unknown_query_is_an_error(folder):
    _append(folder / "qrels" / "test.tsv", "q404\td1\t1")
    with pytest.raises(ValueError, match=r"test.tsv:13: query 'q404' not in the folder"):
        read_beir_folder(folder)


def test_a_pair_judged_twice_and_a_grade_that_is_not_an_integer_are_errors(folder):
    qrels = folder / "qrels" / "test.tsv"
    original = qrels.read_text()
    _append(qrels, "q1\td2\t1")
    with pytest.raises(ValueError, match="query 'q1' judges document 'd2' twice"):
        read_beir_folder(folder)
    qrels.write_text(original + "q2\td1\thigh\n")
    with pytest.raises(ValueError, match=r"test.tsv:13: the score must be an integer grade, got 'high'"):
        read_beir_folder(folder)


def test_bad_json_a_missing_text_and_a_missing_file_name_the_place(folder):
    corpus = folder / "corpus.jsonl"
    original = corpus.read_text()
    _append(corpus, '{"_id": "d13", "text": ')
    with pytest.raises(ValueError, match=r"corpus.jsonl:13: invalid JSON"):
        read_beir_folder(folder)
    corpus.write_text(original + '{"_id": "d13", "title": "no text"}\n')
    with pytest.raises(ValueError, match=r"corpus.jsonl:13: missing 'text'"):
        read_beir_folder(folder)
    with pytest.raises(FileNotFoundError, match="no qrels file"):
        read_beir_folder(folder, split="validation")


def test_a_long_document_is_read_whole(folder):
    long_text = "word " * 2_000_000  # 10 MB
    _append(folder / "corpus.jsonl", json.dumps({"_id": "long", "title": "Long", "text": long_text}))
    collection = read_beir_folder(folder)
    assert len(collection.documents[-1]) == len("Long " + long_text.strip())


def test_json_nested_too_deeply_is_a_bad_line_not_a_crash(folder):
    _append(folder / "queries.jsonl", "[" * 100_000)
    with pytest.raises(ValueError, match=r"queries.jsonl:6: JSON nested too deeply"):
        read_beir_folder(folder)
