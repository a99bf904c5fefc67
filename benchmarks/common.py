"""Helpers shared by the benchmarks: data paths, machine description, the anchor run."""

import os
import platform
import shlex
import subprocess
import sys
import time

from keras_sentemb.utils.checked_files import last_json_line

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


def cpu_flags():
    """The CPU features that decide reduced-precision speed (VNNI, BF16, AMX), as a line."""
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as f:
            flags = next(line.split(":", 1)[1].split() for line in f if line.startswith("flags"))
    except (OSError, StopIteration):
        return "unknown"
    wanted = ("avx2", "avx512f", "avx512_vnni", "avx512_bf16", "amx_bf16", "amx_int8")
    return " ".join(flag for flag in wanted if flag in flags) or "no VNNI/BF16/AMX"


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
    anchor = last_json_line(result.stdout.splitlines(), f"{ANCHOR_SCRIPT} {task}'s output")
    if anchor is None:
        raise RuntimeError(f"the anchor printed no JSON result line:\n{result.stdout[-3000:]}")
    return anchor


def add_beir_training_arguments(parser):
    """The options a benchmark that trains ours beside an anchor on a BEIR collection shares: the anchor venv's
    Python, the collection, the starting model, and the run's size and hyper-parameters."""
    parser.add_argument("--anchor-python", required=True)
    parser.add_argument("--beir", default=os.path.join(SHARED_DATA, "beir", "nfcorpus"))
    parser.add_argument("--model", default="minilm-l6")
    parser.add_argument("--max-pairs", type=int, default=0, help="0: every train pair")
    parser.add_argument("--max-length", type=int, default=256)
    parser.add_argument("--epochs", type=int, default=1)
    parser.add_argument("--batch-size", type=int, default=16)
    parser.add_argument("--learning-rate", type=float, default=2e-5)
    parser.add_argument("--seed", type=int, default=0)


def run_example_streaming(script, options, label):
    """Runs `python examples/<script> <options>` with its output shown as it comes (long
    trainings show their progress); returns (its last JSON line as a dict, its output lines,
    wall seconds). A failure raises with `label`."""
    command = [sys.executable, os.path.join(REPO, "examples", script), *options]
    print(f"[{label}] $", shlex.join(command), flush=True)
    start = time.perf_counter()
    lines = []
    with subprocess.Popen(command, stdout=subprocess.PIPE, text=True) as child:
        for line in child.stdout:
            print("   ", line, end="", flush=True)
            lines.append(line)
    if child.returncode != 0:
        raise RuntimeError(f"{label} failed (exit {child.returncode}); its output is above")
    result = last_json_line(lines, f"{script}'s output")
    if result is None:
        raise RuntimeError(f"{label}: {script} printed no JSON result line; its output is above")
    return result, lines, time.perf_counter() - start


def save_figure(fig, path, dpi=120, rect=None):
    """Lays out `fig` (within `rect` of the figure, (left, bottom, right, top) in 0-1, when given: room
    left for a figure legend) and writes it to `path` (its folder created), atomically: a PNG beside
    it, renamed into place."""
    fig.tight_layout(rect=rect)
    path = os.path.abspath(path)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    tmp = path + ".tmp.png"
    fig.savefig(tmp, dpi=dpi)
    os.replace(tmp, path)


# Runs a command and prints its peak RSS (KiB) and exit code. The measuring parent is this small Python,
# not the benchmark: Linux counts a child's RSS from before its exec in its peak, so a child forked from a
# 1 GB benchmark process would report at least 1 GB whatever it did.
LAUNCHER = """
import resource, subprocess, sys
try:
    code = subprocess.call(sys.argv[2:], stdout=subprocess.DEVNULL, timeout=float(sys.argv[1]))
except subprocess.TimeoutExpired:
    code = "timeout"
print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss, code)
"""


def measured_process(command, timeout, env=None, cwd=None):
    """(exit code or "timeout", seconds, peak RSS MiB, stderr lines) of `command` run in its own process
    through `LAUNCHER`; `env` replaces the environment (default: this one)."""
    start = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-c", LAUNCHER, str(timeout), *command], capture_output=True, text=True, env=env, cwd=cwd
    )
    seconds = time.perf_counter() - start
    rss_kib, code = done.stdout.split()
    return int(code) if code != "timeout" else code, seconds, int(rss_kib) / 1024, done.stderr.strip().splitlines()
