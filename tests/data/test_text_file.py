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


# Property-based: line i of the file is item i-1 for any text without "\n"; any bytes give
# lines or an error naming path:line.

from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

PROPERTY_SETTINGS = settings(
    max_examples=80, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
LINE = st.text(st.characters(exclude_categories=["Cs"], exclude_characters="\n\ufeff"), max_size=30).filter(
    lambda line: not line.endswith("\r")
)


@PROPERTY_SETTINGS
@given(lines=st.lists(LINE, max_size=10), crlf=st.booleans())
def test_lines_read_back_as_written_with_any_unicode_separator_inside(tmp_path, lines, crlf):
    path = tmp_path / "lines.txt"
    end = "\r\n" if crlf else "\n"
    path.write_bytes("".join(line + end for line in lines).encode("utf-8"))
    assert read_lines(path) == lines


@PROPERTY_SETTINGS
@given(data=st.binary(max_size=300))
def test_any_bytes_give_lines_or_an_error_naming_path_and_line(tmp_path, data):
    path = tmp_path / "any.txt"
    path.write_bytes(data)
    try:
        lines = read_lines(path)
    except ValueError as error:
        assert str(error).startswith(f"{path}:"), error
    else:
        text = data.removeprefix(b"\xef\xbb\xbf")  # a leading byte order mark is dropped
        assert len(lines) == text.count(b"\n") + (0 if text.endswith(b"\n") or not text else 1)


def test_a_byte_order_mark_is_not_part_of_the_first_line(tmp_path):
    path = tmp_path / "bom.txt"
    path.write_bytes(b"\xef\xbb\xbffirst\nsecond\n")
    assert read_lines(path) == ["first", "second"]
