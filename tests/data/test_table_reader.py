"""read_table: named columns from TSV, CSV or JSONL (optionally gzipped), each value
converted, every bad row named by path:line or skipped and counted."""

import gzip

import pytest

from keras_sentemb.data.table_reader import infer_format, read_table

FIELDS = {"text": ("sentence", str), "label": ("label", int)}


def write(path, text):
    path.write_text(text, encoding="utf-8")
    return path


@pytest.mark.parametrize(
    ("name", "fmt"),
    [("a.tsv", "tsv"), ("a.TAB", "tsv"), ("a.csv.gz", "csv"), ("a.jsonl", "jsonl"), ("a.ndjson", "jsonl")],
)
def test_the_format_comes_from_the_name(name, fmt):
    assert infer_format(name) == fmt


def test_an_unknown_extension_asks_for_format():
    with pytest.raises(ValueError, match="pass format="):
        infer_format("data.txt")


def test_tsv_csv_and_gzipped_jsonl_read_alike(tmp_path):
    tsv = write(tmp_path / "a.tsv", "label\tsentence\n1\tthe cat\n0\ta dog\n")
    csv = write(tmp_path / "a.csv", 'sentence,label\n"the cat",1\n"a dog",0\n')
    jsonl = tmp_path / "a.jsonl.gz"
    with gzip.open(jsonl, "wt", encoding="utf-8") as f:
        f.write('{"sentence": "the cat", "label": 1}\n\n{"sentence": "a dog", "label": 0, "x": 2}\n')
    for path in (tsv, csv, jsonl):
        columns, report = read_table(path, FIELDS)
        assert columns == {"text": ["the cat", "a dog"], "label": [1, 0]}, path
        assert (report.rows, report.skipped) == (2, 0)


def test_a_bad_value_names_path_line_and_column(tmp_path):
    path = write(tmp_path / "a.tsv", "sentence\tlabel\nok\t1\nbad\tone\n")
    with pytest.raises(ValueError, match=r"a\.tsv:3: column 'label': invalid literal"):
        read_table(path, FIELDS)


def test_skip_mode_counts_the_bad_rows_and_warns_once(tmp_path):
    path = write(tmp_path / "a.tsv", "sentence\tlabel\nok\t1\nshort\nbad\tx\nfine\t0\n")
    with pytest.warns(UserWarning, match="skipped 2 bad line"):
        columns, report = read_table(path, FIELDS, on_bad_lines="skip")
    assert columns["text"] == ["ok", "fine"]
    assert report.skipped == 2 and report.reasons[0].endswith("a.tsv:3: expected 2 fields, got 1")


def test_header_mistakes_and_empty_files_name_line_one(tmp_path):
    with pytest.raises(ValueError, match=r":1: header .* lacks column\(s\) \['label'\]"):
        read_table(write(tmp_path / "a.tsv", "sentence\nx\n"), FIELDS)
    with pytest.raises(ValueError, match=":1: empty file"):
        read_table(write(tmp_path / "b.tsv", ""), FIELDS)


def test_jsonl_rows_must_be_objects_with_the_keys(tmp_path):
    path = write(tmp_path / "a.jsonl", '{"sentence": "x", "label": 1}\n[1, 2]\n{"sentence": "y"}\n{bad\n')
    with pytest.warns(UserWarning):
        _, report = read_table(path, FIELDS, on_bad_lines="skip")
    assert [r.split(": ", 1)[1] for r in report.reasons] == [
        "expected a JSON object, got list",
        "missing key(s) ['label']",
        "invalid JSON (Expecting property name enclosed in double quotes)",
    ]


def test_invalid_utf8_missing_files_and_bad_options_are_clear(tmp_path):
    bad = tmp_path / "a.tsv"
    bad.write_bytes(b"sentence\tlabel\n\xff\t1\n")
    with pytest.raises(ValueError, match="not valid UTF-8"):
        read_table(bad, FIELDS)
    with pytest.raises(FileNotFoundError, match="no such file"):
        read_table(tmp_path / "missing.tsv", FIELDS)
    with pytest.raises(ValueError, match="on_bad_lines"):
        read_table(bad, FIELDS, on_bad_lines="ignore")
