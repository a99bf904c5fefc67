"""Running a script of examples/ as a user would, from the repository root, on the sample data."""

import os
import subprocess
import sys

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SAMPLE_DATA = os.path.join(REPO, "docs", "sample_data")


def run_example(script, *arguments):
    """`python examples/<script> <arguments>` in the repository root: the finished process, its
    stdout and stderr as text (TensorFlow's C++ log silenced)."""
    return subprocess.run(
        [sys.executable, os.path.join(REPO, "examples", script), *arguments],
        cwd=REPO,
        capture_output=True,
        text=True,
        env={**os.environ, "TF_CPP_MIN_LOG_LEVEL": "3", "PYTHONPATH": REPO},
    )
