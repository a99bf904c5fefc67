"""Untrusted chat templates run inside their budget, and the last unclear or slow refusals are one line at once:
a template that loops 10¹⁰ times, asks for range(10⁹), includes a file or doubles a string; an empty
calibration file; an option value out of range; a one-line corpus for a learned code; two positions; a chunk
overlap as wide as the window; a port in use (tests/hostile_bound_inputs.py, BOUND_ROWS)."""

import pytest

from tests.hostile_bound_inputs import BOUND_ROWS
from tests.hostile_inputs import check_row


@pytest.mark.parametrize("row", BOUND_ROWS, ids=[row.name for row in BOUND_ROWS])
def test_the_row_holds(row, hostile_fixtures, tmp_path, capsys):
    check_row(row, hostile_fixtures, tmp_path / "work", capsys)
