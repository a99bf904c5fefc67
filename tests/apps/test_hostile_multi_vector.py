"""Late interaction refuses hostile ColBERT folders, a corrupted multi-vector index folder, an empty document and the
other index kinds' options, each in one error line (exit 2), leaving nothing written.
(tests/hostile_multi_vector_inputs.py, MULTI_VECTOR_ROWS)"""

import pytest

from tests.hostile_inputs import check_row
from tests.hostile_multi_vector_inputs import MULTI_VECTOR_ROWS


@pytest.mark.parametrize("row", MULTI_VECTOR_ROWS, ids=[row.name for row in MULTI_VECTOR_ROWS])
def test_the_row_holds(row, hostile_fixtures, tmp_path, capsys):
    check_row(row, hostile_fixtures, tmp_path / "work", capsys)
