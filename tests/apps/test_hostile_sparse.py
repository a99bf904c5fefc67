"""Learned sparse retrieval refuses hostile sparse folders, a corrupted sparse index folder, a 10 MB document and the
other index kind's options, each in one error line (exit 2), leaving nothing written.
(tests/hostile_sparse_inputs.py, SPARSE_ROWS)"""

import pytest

from tests.hostile_inputs import check_row
from tests.hostile_sparse_inputs import SPARSE_ROWS


@pytest.mark.parametrize("row", SPARSE_ROWS, ids=[row.name for row in SPARSE_ROWS])
def test_the_row_holds(row, hostile_fixtures, tmp_path, capsys):
    check_row(row, hostile_fixtures, tmp_path / "work", capsys)
