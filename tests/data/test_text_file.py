"""One-sentence-a-line files: rows match lines, errors name path:line."""

import pytest

from keras_sentemb.data.text_file import read_lines


def test_keeps_blank_lines_and_drops_only_the_final_newline(tmp_path):
    path = tmp_path / "c.txt"
    path.write_bytes(b"first\r\n\nthird\n")
    assert read_lines(path) == ["first", "", "third"]


def test_undecodable_line_is_reported_with_path_and_line(tmp_path):
    path = tmp_path / "bad.txt"
    path.write_bytes(b"fine\nalso fine\nbroken \xff\n")
    with pytest.raises(ValueError, match=r"bad.txt:3: not valid UTF-8"):
        read_lines(path)
