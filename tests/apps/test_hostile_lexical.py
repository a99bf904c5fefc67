"""Lexical and hybrid retrieval refuse an empty query, a corpus without a word, a lexical index of other
lines or with a changed file, and a fusion chosen on the reported split, each in one error line, leaving
nothing half-written. (tests/hostile_lexical_inputs.py, LEXICAL_ROWS)"""

import pytest

from tests.hostile_inputs import check_row
from tests.hostile_lexical_inputs import LEXICAL_ROWS


@pytest.mark.parametrize("row", LEXICAL_ROWS, ids=[row.name for row in LEXICAL_ROWS])
def test_the_row_holds(row, hostile_fixtures, tmp_path, capsys):
    check_row(row, hostile_fixtures, tmp_path / "work", capsys)
