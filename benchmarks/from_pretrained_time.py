"""`SentenceEncoder.from_pretrained` time on the valid folders, for this checkout and another.

    git worktree add /tmp/base <commit>
    python benchmarks/from_pretrained_time.py --baseline-tree /tmp/base     # ~3 minutes

Folders: every tiny parity folder of `tests/fixtures/st_folders` (all five families, both
layouts), all-MiniLM-L6-v2 and all-mpnet-base-v2 from their weight wheels. Each tree's code runs
in its own process (`PYTHONPATH=<tree>`), one warm-up load then `--loads` timed loads per folder,
median; the trees take turns for `--rounds` rounds (each going first in every other round) so
that both see the same machine. It prints
the median of the rounds per folder and tree, and the ratio this checkout / baseline.
"""

import argparse
import glob
import json
import os
import statistics
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from common import REPO, cpu_flags, machine_description  # noqa: E402

CHILD = r"""
import json, statistics, sys, time
import keras_sentemb
from keras_sentemb import SentenceEncoder
loads, folders = int(sys.argv[1]), sys.argv[2:]
result = {"code": keras_sentemb.__file__}
for folder in folders:
    SentenceEncoder.from_pretrained(folder)  # warm-up: TF's first graph building is not the loader's
    times = []
    for _ in range(loads):
        start = time.perf_counter()
        SentenceEncoder.from_pretrained(folder)
        times.append(time.perf_counter() - start)
    result[folder] = statistics.median(times)
print(json.dumps(result))
"""


def run_tree(tree, loads, folders):
    environment = {**os.environ, "KERAS_BACKEND": "tensorflow", "TF_CPP_MIN_LOG_LEVEL": "3", "PYTHONPATH": tree}
    done = subprocess.run(
        [sys.executable, "-c", CHILD, str(loads), *folders],
        capture_output=True,
        text=True,
        env=environment,
        cwd=tree,  # `python -c` puts the working folder first on sys.path
        check=True,
    )
    result = json.loads(done.stdout.strip().splitlines()[-1])
    if not result.pop("code").startswith(os.path.abspath(tree)):
        raise SystemExit(f"{tree}: the child imported keras_sentemb from elsewhere")
    return result


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--baseline-tree", required=True, help="a checkout of the code to compare with")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--loads", type=int, default=5)
    args = parser.parse_args()
    folders = sorted(glob.glob(os.path.join(REPO, "tests", "fixtures", "st_folders", "*", "config.json")))
    folders = [os.path.dirname(path) for path in folders] + ["minilm-l6", "mpnet-base"]
    trees = {"this checkout": REPO, "baseline": os.path.abspath(args.baseline_tree)}
    print(f"machine: {machine_description()}; CPU flags: {cpu_flags()}")
    times = {name: {folder: [] for folder in folders} for name in trees}
    for number in range(args.rounds):
        order = list(trees.items())
        for name, tree in order if number % 2 == 0 else reversed(order):  # each goes first in turn
            for folder, seconds in run_tree(tree, args.loads, folders).items():
                times[name][folder].append(seconds)
        print(f"round {number + 1}/{args.rounds} done", file=sys.stderr)
    print("| folder | this checkout (ms) | baseline (ms) | ratio |")
    print("|---|---:|---:|---:|")
    ratios = []
    for folder in folders:
        new, old = (statistics.median(times[name][folder]) for name in trees)
        ratios.append(new / old)
        print(f"| {os.path.basename(folder)} | {new * 1000:.1f} | {old * 1000:.1f} | {new / old:.3f} |")
    print(f"\ngeometric mean ratio: {statistics.geometric_mean(ratios):.3f} over {len(folders)} folders")


if __name__ == "__main__":
    main()
