"""LiteRT takes inputs as encode does (a bare string is one text; a non-text element is named by its index), refuses a file that is not ours in one line, and an export into a folder it cannot write fails before converting;
`export --litert` replaces only a `.tflite` it wrote (never a file of the user's, an input, a folder or an `.npy`). (tests/hostile_inputs.py, LITERT_ROWS)"""

import pytest

from tests.hostile_inputs import LITERT_FILE_ROWS, LITERT_ROWS, check_row


@pytest.mark.parametrize(
    "row", LITERT_ROWS + LITERT_FILE_ROWS, ids=[row.name for row in LITERT_ROWS + LITERT_FILE_ROWS]
)
def test_the_row_holds(row, hostile_fixtures, tmp_path, capsys):
    check_row(row, hostile_fixtures, tmp_path / "work", capsys)
