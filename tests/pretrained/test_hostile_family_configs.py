"""A family config.json whose values mean nothing (an epsilon ≤ 0 or 10^30, a scalar of 1e-300, rope_parameters and layer_types of the wrong shape) is refused naming config.json, the key and the value; weights that make NaN vectors never reach a file. (tests/hostile_inputs.py, CONFIG_ROWS)"""

import pytest

from tests.hostile_inputs import CONFIG_ROWS, check_row


@pytest.mark.parametrize("row", CONFIG_ROWS, ids=[row.name for row in CONFIG_ROWS])
def test_the_row_holds(row, hostile_fixtures, tmp_path, capsys):
    check_row(row, hostile_fixtures, tmp_path / "work", capsys)
