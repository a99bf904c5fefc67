"""collect_sentences: distinct sentences of the known files, in order, minus excluded files."""

import pytest

from keras_sentemb.data.sentence_corpus import collect_sentences


@pytest.fixture()
def data_dir(tmp_path):
    (tmp_path / "stsb").mkdir()
    (tmp_path / "sst2").mkdir()
    (tmp_path / "stsb" / "train.tsv").write_text(
        "score\tsentence1\tsentence2\n1.0\tA cat.\tA dog.\n2.0\tA dog.\tRain falls.\n", encoding="utf-8"
    )
    (tmp_path / "stsb" / "test.tsv").write_text(
        "score\tsentence1\tsentence2\n3.0\tRain falls.\tSnow.\n", encoding="utf-8"
    )
    (tmp_path / "sst2" / "train.tsv").write_text("label\tsentence\n1\tgreat film\n0\tA cat.\n", encoding="utf-8")
    return tmp_path


def test_keeps_first_occurrences_in_file_then_row_order(data_dir):
    assert collect_sentences(data_dir) == ["A cat.", "A dog.", "Rain falls.", "Snow.", "great film"]


def test_excluded_files_remove_their_sentences_everywhere(data_dir):
    assert collect_sentences(data_dir, exclude_files=["stsb/test.tsv"]) == ["A cat.", "A dog.", "great film"]


def test_unknown_or_missing_files_are_clear_errors(data_dir, tmp_path):
    with pytest.raises(ValueError, match="unknown data file"):
        collect_sentences(data_dir, files=["mine.tsv"])
    with pytest.raises(FileNotFoundError, match="trec/train.tsv"):
        collect_sentences(data_dir, files=["trec/train.tsv"])
    with pytest.raises(FileNotFoundError, match="nowhere'?: no such folder"):
        collect_sentences(tmp_path / "nowhere")


def test_a_bad_row_names_its_file_and_line(data_dir):
    (data_dir / "sst2" / "dev.tsv").write_text("label\tsentence\n1\tfine\n0\t   \n", encoding="utf-8")
    with pytest.raises(ValueError, match=r"dev.tsv:3: .*empty sentence"):
        collect_sentences(data_dir)
