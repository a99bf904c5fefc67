"""What a killed bulk job leaves (Beam's staging folder with its temporary shards, Spark's and Ray's staging folder) is deleted by the next run of the same output. (tests/hostile_inputs.py, BULK_ROWS)"""

import pytest

from tests.hostile_inputs import BULK_ROWS, check_row


@pytest.mark.parametrize("row", BULK_ROWS, ids=[row.name for row in BULK_ROWS])
def test_the_row_holds(row, hostile_fixtures, tmp_path, capsys):
    check_row(row, hostile_fixtures, tmp_path / "work", capsys)
