"""The folder-replacement rule, command by command: `index build`, `export`, `export --backend openvino` and
`embed-corpus --engine ray` (its replacing cell starts Ray: benchmarks/hostile_inputs.py) over `.`, an input's folder, a folder above an input, `$HOME`, a folder of the user's and a keras-sentemb
folder of another kind are refused, the user's files kept; over one of the right kind they replace it.
`encode -o` over a file of the user's, an input, a folder or another kind's file is refused; over an
`.npy` it replaces it (tests/hostile_inputs.py; `export --litert`'s rows, which convert for 20 s, are in
tests/runtime/test_hostile_litert.py)."""

import pytest

from tests.hostile_inputs import (
    ENCODE_FILE_ROWS,
    ENGINE_CELLS,
    FOLDER_COMMANDS,
    REPLACEMENT_ROWS,
    check_row,
    replaced_by,
)

ROWS = [row for row in REPLACEMENT_ROWS if row.name not in ENGINE_CELLS] + ENCODE_FILE_ROWS


@pytest.mark.parametrize("row", ROWS, ids=[row.name for row in ROWS])
def test_the_rule_holds(row, hostile_fixtures, tmp_path, capsys):
    work = tmp_path / "work"
    check_row(row, hostile_fixtures, work, capsys)
    command = next((c for c in FOLDER_COMMANDS if row.name.startswith(f"{c.name} ×")), None)
    if row.message is None and command is not None:
        assert replaced_by(command, str(work))
