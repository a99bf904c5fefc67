"""Bring-your-own benchmark files: STS `score<TAB>s1<TAB>s2` and classification
`label<TAB>sentence`, read strictly, with every bad line named as file:line."""

import csv
import os

import pytest

from keras_sentemb.evaluation.task_files import (
    classification_folder_tasks,
    read_classification_file,
    read_sts_file,
    sts_folder_files,
)
from tests.conftest import FIXTURES

TASKS = os.path.join(FIXTURES, "eval_tasks")


def write(tmp_path, name, text, mode="w"):
    path = tmp_path / name
    if mode == "wb":
        path.write_bytes(text)
    else:
        path.write_text(text, encoding="utf-8")
    return str(path)


def test_an_sts_file_with_a_header_and_one_without_read_alike(tmp_path):
    with_header = read_sts_file(os.path.join(TASKS, "sts", "captions.tsv"))
    assert len(with_header) == 6 and with_header.scores[:2] == [5.0, 4.2]
    assert with_header.sentences1[0] == "A man is playing a guitar."
    without = read_sts_file(os.path.join(TASKS, "sts", "questions.txt"))
    assert without.scores == [0.9, 0.1, 0.7, 0.2, 0.5]


def test_blank_lines_and_a_byte_order_mark_are_ignored(tmp_path):
    path = write(tmp_path, "x.tsv", "\ufeff1\ta\tb\n\n2\tc\td\n", "w")
    assert read_sts_file(path).scores == [1.0, 2.0]


@pytest.mark.parametrize("separator", ["\u2028", "\u2029", "\x85", "\x0b", "\x1c"])
def test_unicode_line_separators_inside_a_sentence_stay_in_it(tmp_path, separator):
    path = write(tmp_path, "x.tsv", f"1\tone{separator}line\tb\r\n2\tc\td\n3\te\t\n", "w")
    with pytest.raises(ValueError, match=r"x.tsv:3: sentence2 is empty"):  # numbering not shifted
        read_sts_file(path)
    path = write(tmp_path, "x.tsv", f"1\tone{separator}line\tb\r\n2\tc\td\n", "w")
    assert read_sts_file(path).sentences1 == [f"one{separator}line", "c"]


@pytest.mark.parametrize(
    "text, message",
    [
        ("1\ta\tb\n2\tc\n", r"x.tsv:2: expected 3 TAB-separated fields \(score, sentence1, sentence2\), got 2"),
        ("1\ta\tb\n2\tc\td\textra\n", r"x.tsv:2: expected 3 TAB-separated fields .* got 4"),
        ("1\ta\tb\nhigh\tc\td\n", r"x.tsv:2: score 'high' is not a number"),
        ("1\ta\tb\nnan\tc\td\n", r"x.tsv:2: score 'nan' is not a finite number"),
        ("1\ta\tb\n2\t \td\n", r"x.tsv:2: sentence1 is empty"),
        ("1\ta\tb\n", "at least two scored pairs, got 1"),
    ],
)
def test_a_malformed_sts_line_is_an_error_naming_file_and_line(tmp_path, text, message):
    with pytest.raises(ValueError, match=message):
        read_sts_file(write(tmp_path, "x.tsv", text))


def test_invalid_utf8_names_the_line(tmp_path):
    path = write(tmp_path, "x.tsv", b"1\ta\tb\n2\tc\xff\td\n", "wb")
    with pytest.raises(ValueError, match=r"x.tsv:2: not valid UTF-8"):
        read_sts_file(path)


def test_a_missing_file_is_file_not_found(tmp_path):
    with pytest.raises(FileNotFoundError, match="no such file"):
        read_sts_file(str(tmp_path / "absent.tsv"))


def test_classification_labels_are_kept_as_strings():
    data = read_classification_file(os.path.join(TASKS, "classification", "questions.train.tsv"))
    assert len(data) == 12 and data.label_names == ("HUM", "LOC", "NUM")
    assert data.labels[0] == "LOC" and data.sentences[0] == "where is the station ?"


@pytest.mark.parametrize(
    "text, message",
    [
        ("pos\tgood\nneg\n", r"y.tsv:2: expected 2 TAB-separated fields \(label, sentence\), got 1"),
        ("pos\tgood\n\tbad\n", r"y.tsv:2: label is empty"),
        ("label\tsentence\n", "no labelled sentences"),
    ],
)
def test_a_malformed_classification_line_is_an_error(tmp_path, text, message):
    with pytest.raises(ValueError, match=message):
        read_classification_file(write(tmp_path, "y.tsv", text))


def test_a_classification_folder_has_cross_validated_and_split_tasks():
    tasks = classification_folder_tasks(os.path.join(TASKS, "classification"))
    assert [t.name for t in tasks] == ["questions", "sentiment"]
    questions, sentiment = tasks
    assert questions.train.endswith("questions.train.tsv") and questions.dev.endswith("questions.dev.tsv")
    assert questions.single is None and sentiment.single.endswith("sentiment.tsv")


def test_an_sts_folder_lists_one_task_per_file():
    assert sorted(sts_folder_files(os.path.join(TASKS, "sts"))) == ["captions", "questions"]


def test_folder_mistakes_are_errors(tmp_path):
    with pytest.raises(FileNotFoundError, match="no such classification folder"):
        classification_folder_tasks(str(tmp_path / "absent"))
    with pytest.raises(ValueError, match="no .tsv/.txt/.csv files"):
        sts_folder_files(str(tmp_path))
    write(tmp_path, "trec.train.tsv", "A\tx\n")
    with pytest.raises(ValueError, match=r"task 'trec' lacks its trec.test.tsv"):
        classification_folder_tasks(str(tmp_path))
    write(tmp_path, "trec.test.tsv", "A\tx\n")
    write(tmp_path, "trec.tsv", "A\tx\n")
    with pytest.raises(ValueError, match="both a single file and split files"):
        classification_folder_tasks(str(tmp_path))


def test_a_typo_in_the_first_data_row_is_an_error_not_a_header(tmp_path):
    path = write(tmp_path, "x.tsv", "4.O\ta\tb\n2\tc\td\n3\te\tf\n")
    with pytest.raises(ValueError, match=r"x.tsv:1: score '4.O' is not a number"):
        read_sts_file(path)


def test_header_detection_is_explicit(tmp_path):
    path = write(tmp_path, "x.tsv", "gold\tleft\tright\n2\tc\td\n3\te\tf\n")
    with pytest.raises(ValueError, match=r"x.tsv:1: score 'gold'"):
        read_sts_file(path)  # not the known header: data, and bad data
    assert read_sts_file(path, header=True).scores == [2.0, 3.0]
    path = write(tmp_path, "y.tsv", "SCORE\tSentence1\tsentence2\n2\tc\td\n3\te\tf\n")
    assert read_sts_file(path).scores == [2.0, 3.0]
    path = write(tmp_path, "z.tsv", "label\tsentence\nneg\tbad\n")
    assert read_classification_file(path, header=False).labels == ["label", "neg"]
    assert read_classification_file(path).labels == ["neg"]


# Property-based: any bytes give pairs or an error naming the file; pairs written as the format
# says read back exactly.

from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

PROPERTY_SETTINGS = settings(
    max_examples=80, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
SENTENCE = (
    st.text(st.characters(exclude_categories=["Cs"], exclude_characters="\t\n"), min_size=1, max_size=30)
    .map(str.strip)
    .filter(bool)
)


@PROPERTY_SETTINGS
@given(data=st.binary(max_size=400), kind=st.sampled_from(["sts", "classification"]))
def test_any_bytes_give_examples_or_an_error_naming_the_file(tmp_path, data, kind):
    path = tmp_path / "any.tsv"
    path.write_bytes(data)
    try:
        (read_sts_file if kind == "sts" else read_classification_file)(path)
    except ValueError as error:
        assert str(error).startswith(f"{path}:"), error


@PROPERTY_SETTINGS
@given(pairs=st.lists(st.tuples(st.floats(-1e6, 1e6), SENTENCE, SENTENCE), min_size=2, max_size=8))
def test_sts_pairs_read_back_as_written(tmp_path, pairs):
    path = tmp_path / "pairs.tsv"
    path.write_bytes("".join(f"{score!r}\t{a}\t{b}\n" for score, a, b in pairs).encode("utf-8"))
    read = read_sts_file(path)
    assert list(zip(read.scores, read.sentences1, read.sentences2)) == pairs


def test_csv_files_and_headers_in_any_column_order_read_like_the_tsv(tmp_path):
    """A user's pairs as CSV (quoted fields may hold commas and line breaks) or TSV, with a header
    naming the columns in any order, or none (then score, sentence1, sentence2)."""
    expected = ([4.5, 0.5], ["A cat, sitting.", 'He said "hi"\nand left.'], ["A cat sits.", "The sky."])
    files = {
        "plain.csv": 'score,sentence1,sentence2\n4.5,"A cat, sitting.",A cat sits.\n0.5,"He said ""hi""\nand left.",The sky.\n',
        "reordered.csv": 'Sentence1,Sentence2,Score\n"A cat, sitting.",A cat sits.,4.5\r\n"He said ""hi""\nand left.",The sky.,0.5\r\n',
        "no_header.csv": '4.5,"A cat, sitting.",A cat sits.\n0.5,"He said ""hi""\nand left.",The sky.\n',
        "reordered.tsv": 'sentence2\tscore\tsentence1\nA cat sits.\t4.5\tA cat, sitting.\nThe sky.\t0.5\tHe said "hi"\n',
    }
    for name, text in files.items():
        (tmp_path / name).write_text(text, encoding="utf-8")
        pairs = read_sts_file(tmp_path / name)
        wanted = expected if name.endswith(".csv") else (expected[0], [expected[1][0], 'He said "hi"'], expected[2])
        assert (pairs.scores, pairs.sentences1, pairs.sentences2) == wanted, name
    with pytest.raises(ValueError, match=r"two files for task 'reordered': reordered.csv and reordered.tsv"):
        sts_folder_files(tmp_path)
    os.remove(tmp_path / "reordered.tsv")
    assert set(sts_folder_files(tmp_path)) == {"plain", "reordered", "no_header"}


def test_a_csv_row_with_the_wrong_field_count_names_its_line(tmp_path):
    path = tmp_path / "pairs.csv"
    path.write_text('score,sentence1,sentence2\n1,"two\nlines",b\n2,only two\n', encoding="utf-8")
    with pytest.raises(
        ValueError, match=r"pairs.csv:4: expected 3 comma-separated fields \(score, sentence1, sentence2\), got 2"
    ):
        read_sts_file(path)


@PROPERTY_SETTINGS
@given(pairs=st.lists(st.tuples(st.floats(-1e6, 1e6), SENTENCE, SENTENCE), min_size=2, max_size=8))
def test_csv_pairs_read_back_as_csv_writer_wrote_them(tmp_path, pairs):
    path = tmp_path / "pairs.csv"
    with open(path, "w", encoding="utf-8", newline="") as f:
        csv.writer(f).writerows([("sentence1", "score", "sentence2"), *((a, repr(s), b) for s, a, b in pairs)])
    read = read_sts_file(path)
    assert list(zip(read.scores, read.sentences1, read.sentences2)) == pairs


def test_a_classification_task_with_two_files_for_one_split_is_an_error(tmp_path):
    for name in ("trec.train.tsv", "trec.train.csv", "trec.test.tsv"):
        (tmp_path / name).write_text("label\tsentence\nA\tx\n" if name.endswith("tsv") else "label,sentence\nA,x\n")
    with pytest.raises(ValueError, match=r"two files for 'trec' train: trec.train.csv and trec.train.tsv"):
        classification_folder_tasks(tmp_path)
