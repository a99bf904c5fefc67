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
        "invalid JSON (Expecting property name enclosed in double quotes, column 2)",
    ]


def test_invalid_utf8_missing_files_and_bad_options_are_clear(tmp_path):
    bad = tmp_path / "a.tsv"
    bad.write_bytes(b"sentence\tlabel\n\xff\t1\n")
    with pytest.raises(ValueError, match=r"a.tsv:2: not valid UTF-8"):
        read_table(bad, FIELDS)
    late = tmp_path / "late.tsv"
    late.write_bytes(b"sentence\tlabel\n" + b"fine\t1\n" * 5000 + b"\xff\t1\n")  # past the decoder's buffer
    with pytest.raises(ValueError, match=r"late.tsv:5002: not valid UTF-8"):
        read_table(late, FIELDS)
    with pytest.raises(FileNotFoundError, match="no such file"):
        read_table(tmp_path / "missing.tsv", FIELDS)
    with pytest.raises(ValueError, match="on_bad_lines"):
        read_table(bad, FIELDS, on_bad_lines="ignore")


def test_a_field_over_the_csv_size_limit_names_its_line(tmp_path):
    path = write(tmp_path / "a.csv", "sentence,label\nfine,1\n" + '"' + "x" * 200_000 + '",1\n')
    with pytest.raises(ValueError, match=r"a.csv:3: field larger than field limit"):
        read_table(path, FIELDS)


def test_a_damaged_or_truncated_gzip_is_a_clear_error(tmp_path):
    whole = gzip.compress(("sentence\tlabel\n" + "a\t1\n" * 1000).encode())
    (tmp_path / "cut.tsv.gz").write_bytes(whole[: len(whole) // 2])
    with pytest.raises(ValueError, match=r"cut.tsv.gz: damaged gzip file"):
        read_table(tmp_path / "cut.tsv.gz", FIELDS)
    (tmp_path / "plain.tsv.gz").write_bytes(b"sentence\tlabel\na\t1\n")
    with pytest.raises(ValueError, match=r"plain.tsv.gz: damaged gzip file"):
        read_table(tmp_path / "plain.tsv.gz", FIELDS)


def test_deeply_nested_json_is_a_bad_line_not_a_crash(tmp_path):
    path = write(tmp_path / "a.jsonl", '{"sentence": "a", "label": 1}\n' + "[" * 100_000 + "]" * 100_000 + "\n")
    with pytest.raises(ValueError, match=r"a.jsonl:2: JSON nested too deeply"):
        read_table(path, FIELDS)


def test_a_bad_json_line_names_its_column(tmp_path):
    path = write(tmp_path / "a.jsonl", '{"sentence": "a", "label": 1,}\n')
    with pytest.raises(ValueError, match=r"a.jsonl:1: invalid JSON \(.*, column 30\)"):
        read_table(path, FIELDS)


# Property-based: any bytes give rows or a ValueError naming the file; anything the standard
# writers produce reads back exactly (quotes, CR, U+2028 and friends inside CSV and JSONL fields).

import csv  # noqa: E402
import io  # noqa: E402
import json  # noqa: E402

from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

PROPERTY_SETTINGS = settings(
    max_examples=80, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
TEXT_FIELDS = {"text": ("sentence", str), "label": ("label", int)}
ANY_TEXT = st.text(st.characters(exclude_categories=["Cs"]), max_size=40)


@PROPERTY_SETTINGS
@given(data=st.binary(max_size=600), name=st.sampled_from(["t.tsv", "t.csv", "t.jsonl", "t.tsv.gz"]))
def test_any_bytes_give_rows_or_an_error_naming_the_file(tmp_path, data, name):
    path = tmp_path / name
    path.write_bytes(gzip.compress(data) if name.endswith(".gz") and data[:1] == b"s" else data)
    try:
        columns, report = read_table(path, TEXT_FIELDS)
    except ValueError as error:
        assert str(error).startswith(str(path)), error
    else:
        assert len(columns["text"]) == len(columns["label"]) == report.rows


@PROPERTY_SETTINGS
@given(rows=st.lists(st.tuples(ANY_TEXT, st.integers(-(10**9), 10**9)), max_size=8))
def test_csv_written_by_the_csv_module_reads_back_exactly(tmp_path, rows):
    buffer = io.StringIO(newline="")
    writer = csv.writer(buffer)
    writer.writerow(["sentence", "label"])
    writer.writerows(rows)
    path = tmp_path / "rows.csv"
    path.write_bytes(buffer.getvalue().encode("utf-8"))
    columns, _ = read_table(path, TEXT_FIELDS)
    assert list(zip(columns["text"], columns["label"])) == rows


@PROPERTY_SETTINGS
@given(rows=st.lists(st.tuples(ANY_TEXT, st.integers(-(10**9), 10**9)), max_size=8))
def test_jsonl_written_by_json_dumps_reads_back_exactly(tmp_path, rows):
    path = tmp_path / "rows.jsonl"
    lines = [json.dumps({"sentence": text, "label": label}, ensure_ascii=False) for text, label in rows]
    path.write_bytes("".join(line + "\n" for line in lines).encode("utf-8"))
    columns, _ = read_table(path, TEXT_FIELDS)
    assert list(zip(columns["text"], columns["label"])) == rows
