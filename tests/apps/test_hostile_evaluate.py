"""`evaluate` refuses chunking options that shape nothing or that the model cannot take, and SPLADE / ColBERT folders
on tasks other than retrieval, each in one error line (exit 2), writing no report.
(tests/hostile_evaluate_inputs.py, EVALUATE_ROWS)"""

import pytest

from tests.hostile_evaluate_inputs import EVALUATE_ROWS
from tests.hostile_inputs import check_row


@pytest.mark.parametrize("row", EVALUATE_ROWS, ids=[row.name for row in EVALUATE_ROWS])
def test_the_row_holds(row, hostile_fixtures, tmp_path, capsys):
    check_row(row, hostile_fixtures, tmp_path / "work", capsys)
