"""Helpers shared by the benchmarks: data paths, machine description, the anchor run."""

import json
import os
import platform
import subprocess
import sys

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SHARED_DATA = os.path.join(os.path.dirname(REPO), "shared", "data")
ANCHOR_SCRIPT = os.path.join(REPO, "benchmarks", "anchors", "sentence_transformers_anchor.py")


def default_stsb_test():
    return os.path.join(SHARED_DATA, "stsb", "test.tsv")


def machine_description():
    cpu = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as f:
            names = [line.split(":", 1)[1].strip() for line in f if line.startswith("model name")]
        cpu = names[0] if names else cpu
    except OSError:
        pass
    return f"{cpu}, {os.cpu_count()} logical CPUs, Python {platform.python_version()}"


def run_anchor(anchor_python, task, data, extra=()):
    """Runs the sentence-transformers anchor; returns its JSON dict, or None if unavailable.

    The anchor runs in `anchor_python` (an interpreter with PyTorch and
    sentence-transformers); with no interpreter given, the current one is tried when it
    can import sentence_transformers.
    """
    interpreter = anchor_python
    if interpreter is None:
        try:
            import sentence_transformers  # noqa: F401
        except ImportError:
            return None
        interpreter = sys.executable
    result = subprocess.run(
        [interpreter, ANCHOR_SCRIPT, task, "--data", data, *extra],
        capture_output=True,
        text=True,
        check=False,
    )
    if result.returncode != 0:
        raise RuntimeError(f"the anchor failed:\n{result.stderr[-3000:]}")
    return json.loads(result.stdout.strip().splitlines()[-1])
