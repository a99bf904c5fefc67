"""Chunking's switches are booleans, and a prompt that leaves a window no room for the text is named as such. (tests/hostile_inputs.py, CHUNKING_ROWS)"""

import pytest

from tests.hostile_inputs import CHUNKING_ROWS, check_row


@pytest.mark.parametrize("row", CHUNKING_ROWS, ids=[row.name for row in CHUNKING_ROWS])
def test_the_row_holds(row, hostile_fixtures, tmp_path, capsys):
    check_row(row, hostile_fixtures, tmp_path / "work", capsys)
