"""A BEIR folder with grades out of range, bytes that are not UTF-8, over-long ids or a FIFO is refused with path:line (or path). (tests/hostile_inputs.py, BEIR_ROWS)"""

import pytest

from tests.hostile_inputs import BEIR_ROWS, check_row


@pytest.mark.parametrize("row", BEIR_ROWS, ids=[row.name for row in BEIR_ROWS])
def test_the_row_holds(row, hostile_fixtures, tmp_path, capsys):
    check_row(row, hostile_fixtures, tmp_path / "work", capsys)
