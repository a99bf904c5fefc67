"""Run a Python script in a fresh interpreter that sees only installed packages (no checkout on
PYTHONPATH): how the tests prove a SavedModel serves with TensorFlow and TF Text alone."""

import json
import os
import subprocess
import sys


def run_fresh_python(script, *arguments, cwd, timeout=300):
    """Runs `python -c script arguments…` in `cwd`; asserts it succeeded and returns the JSON of the
    last line it printed (the scripts print what they imported, or a report)."""
    result = subprocess.run(
        [sys.executable, "-c", script, *map(str, arguments)],
        capture_output=True,
        text=True,
        timeout=timeout,
        cwd=cwd,
        env={**os.environ, "PYTHONPATH": ""},
    )
    assert result.returncode == 0, result.stderr[-3000:]
    return json.loads(result.stdout.strip().splitlines()[-1])
