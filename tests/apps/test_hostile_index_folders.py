"""An index folder from elsewhere (truncated, swapped, a FIFO, a device, ids and spans out of range) is refused in one error line naming the file, and building one never replaces a folder or file of the user's. (tests/hostile_inputs.py, INDEX_ROWS)"""

import pytest

from tests.hostile_inputs import INDEX_ROWS, check_row


@pytest.mark.parametrize("row", INDEX_ROWS, ids=[row.name for row in INDEX_ROWS])
def test_the_row_holds(row, hostile_fixtures, tmp_path, capsys):
    check_row(row, hostile_fixtures, tmp_path / "work", capsys)
