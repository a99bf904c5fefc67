"""Corrupted model folders through `keras-sentemb encode`: exit code, seconds, peak RSS, message.

    python benchmarks/corrupted_folders.py                 # ~4 minutes on 2 cores
    python benchmarks/corrupted_folders.py --only FIFO     # the rows whose name contains FIFO

Each corruption of `tests/pretrained/corrupted_folders.py` (the probe list: config.json
dimensions, types and shapes, damaged or forged safetensors, tokenizer files that are FIFOs,
devices or dangling links, sentence-transformers modules) is applied to a fresh copy of the
tiny valid folder and run as a user runs it — the console script in its own process, with a
limit of `--timeout` seconds. The peak RSS is the child's own, measured by a small launcher
process (`common.LAUNCHER`), so one row never hides behind another or behind this script. The valid folder runs first as the control. The bar (issue 59): every corruption
exits 2 with one `error:` line, within 10 s and 1 GiB.
"""

import argparse
import os
import re
import shutil
import sys
import tempfile

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(REPO, "benchmarks"))
sys.path.insert(0, REPO)

from common import cpu_flags, machine_description, measured_process  # noqa: E402

from tests.pretrained.corrupted_folders import CORRUPTIONS, copy_base  # noqa: E402

SECONDS_BAR, RSS_BAR_MIB = 10.0, 1024.0


def run_cli(folder, work, timeout):
    """(exit code, seconds, peak RSS MiB, stderr lines) of `keras-sentemb encode` on `folder`."""
    script = os.path.join(os.path.dirname(sys.executable), "keras-sentemb")
    command = [script, "encode", os.path.join(work, "in.txt"), "-o", os.path.join(work, "out.npy"), "--model", folder]
    environment = {**os.environ, "KERAS_BACKEND": "tensorflow"}
    environment.pop("TF_CPP_MIN_LOG_LEVEL", None)  # what a user gets from the console script itself
    return measured_process(command, timeout, env=environment)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--only", default="", help="run only the corruptions whose name contains this")
    parser.add_argument("--timeout", type=float, default=120.0, help="seconds before a child is killed")
    args = parser.parse_args()
    print(f"machine: {machine_description()}; CPU flags: {cpu_flags()}")
    rows = [("valid folder (control)", None, None)] + [row for row in CORRUPTIONS if args.only in row[0]]
    print("| folder | exit | seconds | peak RSS MiB | stderr lines | message |")
    print("|---|---:|---:|---:|---:|---|")
    failures = []
    work = tempfile.mkdtemp(prefix="corrupted-folders-")
    try:
        with open(os.path.join(work, "in.txt"), "w", encoding="utf-8") as f:
            f.write("A cat sits on the mat.\n")
        worst_seconds = worst_rss = 0.0
        for number, (name, corrupt, message) in enumerate(rows):
            folder = copy_base(os.path.join(work, f"model-{number}"))
            if corrupt is not None:
                corrupt(folder)
            code, seconds, rss, lines = run_cli(folder, work, args.timeout)
            shown = re.sub(re.escape(work) + r"/model-\d+", "<folder>", lines[-1] if lines else "")
            print(f"| {name} | {code} | {seconds:.2f} | {rss:,.0f} | {len(lines)} | {shown.replace('|', '¦')} |")
            shutil.rmtree(folder, ignore_errors=True)
            if corrupt is None:
                if code != 0:
                    failures.append(f"{name}: exit {code}")
                continue
            worst_seconds, worst_rss = max(worst_seconds, seconds), max(worst_rss, rss)
            one_line = len(lines) == 1 and lines[0].startswith("keras-sentemb encode: error: ")
            if code != 2 or not one_line or not re.search(message, lines[0]):
                failures.append(f"{name}: exit {code}, {len(lines)} stderr lines")
            if seconds > SECONDS_BAR or rss > RSS_BAR_MIB:
                failures.append(f"{name}: {seconds:.1f} s, {rss:,.0f} MiB")
    finally:
        shutil.rmtree(work, ignore_errors=True)
    corrupted = len(rows) - 1
    print(
        f"\n{corrupted} corruptions: slowest {worst_seconds:.2f} s (bar {SECONDS_BAR:.0f} s), largest peak RSS "
        f"{worst_rss:,.0f} MiB (bar {RSS_BAR_MIB:,.0f} MiB); {'all hold' if not failures else 'FAILED:'}"
    )
    for failure in failures:
        print(f"  {failure}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
