"""Typed readers: explicit columns, TSV/CSV/JSONL/gz, validation naming path:line."""

import gzip
import json

import pytest

from keras_sentemb.data.examples import (
    NLI_LABELS,
    read_labeled_pairs,
    read_labeled_sentences,
    read_pairs,
    read_scored_pairs,
    read_triplets,
)


def write(path, text):
    path.write_text(text, encoding="utf-8")
    return path


def test_reads_scored_pairs_from_tsv(tmp_path):
    path = write(tmp_path / "sts.tsv", "score\tsentence1\tsentence2\n4.5\tA cat.\tA kitten.\n0\tA\tB\n")
    pairs = read_scored_pairs(path)
    assert (pairs.sentences1, pairs.sentences2, pairs.scores) == (["A cat.", "A"], ["A kitten.", "B"], [4.5, 0.0])


def test_reads_pairs_without_scores_and_points_score_none_to_that_reader(tmp_path):
    path = write(tmp_path / "pairs.tsv", "query\tdocument\tsource\nstatins?\tStatin use and survival\tpubmed\n")
    pairs = read_pairs(path, "query", "document")
    assert (pairs.sentences1, pairs.sentences2, len(pairs)) == (["statins?"], ["Statin use and survival"], 1)
    with pytest.raises(TypeError, match=r"score=None\): pairs without scores are read by read_pairs"):
        read_scored_pairs(path, "query", "document", score=None)
    with pytest.raises(ValueError, match=r"pairs.tsv:1: .*'answer'"):
        read_pairs(path, "query", "answer")


def test_reads_csv_with_quotes_and_custom_column_names(tmp_path):
    path = write(tmp_path / "p.csv", 'q,d,rel\n"Hello, world",Hi,1\n')
    pairs = read_scored_pairs(path, "q", "d", "rel", score_range=(0, 1))
    assert pairs.sentences1 == ["Hello, world"] and pairs.scores == [1.0]


def test_reads_gzipped_nli_with_label_names(tmp_path):
    path = tmp_path / "nli.tsv.gz"
    with gzip.open(path, "wt", encoding="utf-8") as f:
        f.write("label\tpremise\thypothesis\nneutral\tA b.\tC d.\ncontradiction\tE.\tF.\n")
    nli = read_labeled_pairs(path, "premise", "hypothesis", label_names=NLI_LABELS)
    assert nli.labels == [1, 2] and nli.label_names == NLI_LABELS


def test_reads_triplets_from_jsonl(tmp_path):
    rows = [{"anchor": "a", "positive": "p", "negative": "n", "extra": 1}] * 2
    path = write(tmp_path / "t.jsonl", "\n".join(json.dumps(r) for r in rows) + "\n\n")
    triplets = read_triplets(path)
    assert (triplets.anchors, triplets.negatives, len(triplets)) == (["a", "a"], ["n", "n"], 2)


def test_reads_labelled_sentences_with_integer_labels(tmp_path):
    path = write(tmp_path / "sst.tsv", "label\tsentence\n0\tbad film\n1\tgood film\n")
    assert read_labeled_sentences(path).labels == [0, 1]


@pytest.mark.parametrize(
    "text, message",
    [
        ("score\tsentence1\tsentence2\n4.0\tA\n", r"s.tsv:2: expected 3 fields, got 2"),
        (
            "score\tsentence1\tsentence2\n1\tA\tB\nhigh\tA\tB\n",
            r"s.tsv:3: column 'score': score 'high' is not a number",
        ),
        ("score\tsentence1\tsentence2\n7.5\tA\tB\n", r"s.tsv:2: column 'score': score 7.5 is outside \[0.0, 5.0\]"),
        ("score\tsentence1\tsentence2\nnan\tA\tB\n", r"s.tsv:2: column 'score': score nan is outside"),
        ("score\tsentence1\tsentence2\n1\t  \tB\n", r"s.tsv:2: column 'sentence1': empty sentence"),
        ("sentence1\tsentence2\nA\tB\n", r"s.tsv:1: header .* lacks column\(s\) \['score'\]"),
        ("", r"s.tsv:1: empty file"),
    ],
)
def test_bad_rows_name_path_and_line(tmp_path, text, message):
    path = write(tmp_path / "s.tsv", text)
    with pytest.raises(ValueError, match=message):
        read_scored_pairs(path)


def test_unknown_label_and_bad_json_name_the_line(tmp_path):
    path = write(tmp_path / "n.tsv", "label\tsentence1\tsentence2\nmaybe\tA\tB\n")
    with pytest.raises(ValueError, match=r"n.tsv:2: column 'label': label 'maybe' is not one of"):
        read_labeled_pairs(path, label_names=NLI_LABELS)
    path = write(tmp_path / "t.jsonl", '{"anchor": "a", "positive": "p", "negative": "n"}\n{oops\n')
    with pytest.raises(ValueError, match=r"t.jsonl:2: invalid JSON"):
        read_triplets(path)


def test_skip_mode_drops_and_counts_bad_rows(tmp_path):
    path = write(
        tmp_path / "s.tsv",
        "score\tsentence1\tsentence2\n1\tA\tB\nx\tA\tB\n2\tC\n3\t\tD\n4\tE\tF\n",
    )
    with pytest.warns(UserWarning, match="skipped 3 bad line"):
        pairs = read_scored_pairs(path, on_bad_lines="skip")
    assert pairs.scores == [1.0, 4.0] and pairs.skipped == 3


def test_missing_file_and_unknown_format_are_clear_errors(tmp_path):
    with pytest.raises(FileNotFoundError, match="nope.tsv: no such file"):
        read_scored_pairs(tmp_path / "nope.tsv")
    with pytest.raises(ValueError, match="cannot tell the format"):
        read_scored_pairs(write(tmp_path / "data.txt", "x"))
    with pytest.raises(ValueError, match="on_bad_lines"):
        read_scored_pairs(tmp_path / "nope.tsv", on_bad_lines="ignore")


def test_boolean_scores_and_labels_and_out_of_range_labels_are_refused(tmp_path):
    path = write(tmp_path / "s.jsonl", '{"score": true, "sentence1": "A", "sentence2": "B"}\n')
    with pytest.raises(ValueError, match=r"s.jsonl:1: column 'score': score True is a boolean"):
        read_scored_pairs(path)
    path = write(tmp_path / "l.jsonl", '{"label": false, "sentence": "A"}\n')
    with pytest.raises(ValueError, match=r"l.jsonl:1: column 'label': label False is a boolean"):
        read_labeled_sentences(path)
    path = write(tmp_path / "l.tsv", "label\tsentence\n1\tA\n-1\tB\n")
    with pytest.raises(ValueError, match=r"l.tsv:3: column 'label': label -1 is negative"):
        read_labeled_sentences(path)
    path = write(tmp_path / "p.tsv", "label\tsentence1\tsentence2\n1\tA\tB\n2\tC\tD\n")
    with pytest.raises(ValueError, match=r"p.tsv:3: column 'label': label 2 is outside \[0, 2\)"):
        read_labeled_pairs(path, num_classes=2)
    assert read_labeled_pairs(path).labels == [1, 2]
