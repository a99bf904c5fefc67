"""Cold first `zoo.load` of every zoo member, each in a fresh process with an empty
`$KERAS_SENTEMB_HOME` (no cache, nothing assembled): what a new user waits for.

Per model it prints the import time of keras_sentemb (not counted), the `zoo.load` time (the
target: <= 5 s on 2 cores) and the first `encode` of one sentence. The same-run anchor is the
load without the MiniLM word table the zoo ships (zoo/word-vectors): the word-level members then
compute it, one MiniLM pass over 100,000 words, as every first load did before.

    python benchmarks/zoo_first_load.py [--models a,b] [--no-anchor]
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from common import REPO, cpu_flags, machine_description  # noqa: E402

TARGET_SECONDS = 5.0

CHILD = r"""
import json, os, sys, time
start = time.perf_counter()
from keras_sentemb import zoo
import keras_sentemb.zoo.local_zoo as local_zoo
imported = time.perf_counter() - start
if sys.argv[2] == "without-shipped-tables":
    local_zoo.SHIPPED_TABLES = "no-such-folder"
start = time.perf_counter()
model = zoo.load(sys.argv[1])
loaded = time.perf_counter() - start
start = time.perf_counter()
if hasattr(model, "encode"):
    model.encode(["A man is playing a guitar."], progress=False)
else:
    model.predict_pairs(["A man is playing a guitar."], ["Someone plays music."], progress=False)
first = time.perf_counter() - start
print(json.dumps({"import": imported, "load": loaded, "first_call": first}))
"""


def cold_load(name, mode="with-shipped-tables", runs=1):
    """The child's timings in a fresh process with an empty home; with `runs` 2, also those of a
    second fresh process on the home the first one filled (what was unpacked once stays)."""
    timings = []
    with tempfile.TemporaryDirectory() as home:
        env = {**os.environ, "KERAS_SENTEMB_HOME": home, "TF_CPP_MIN_LOG_LEVEL": "3"}
        for _ in range(runs):
            done = subprocess.run(
                [sys.executable, "-c", CHILD, name, mode], capture_output=True, text=True, env=env, check=False
            )
            if done.returncode != 0:
                raise RuntimeError(f"{name}: the child failed:\n{done.stderr[-3000:]}")
            timings.append(json.loads(done.stdout.strip().splitlines()[-1]))
    return timings if runs > 1 else timings[0]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--models", help="comma-separated zoo names (default: every member)")
    parser.add_argument("--no-anchor", action="store_true", help="skip the 70 s load without the shipped table")
    args = parser.parse_args()
    from keras_sentemb import zoo

    names = args.models.split(",") if args.models else [entry["name"] for entry in zoo.list()]
    print(f"machine: {machine_description()}; CPU flags: {cpu_flags()}; zoo folder: {zoo.zoo_dir()}")
    print(f"{'model':<30} {'import s':>9} {'zoo.load s':>11} {'first encode s':>15}  load <= {TARGET_SECONDS:.0f} s")
    worst = 0.0
    for name in names:
        t = cold_load(name)
        worst = max(worst, t["load"])
        verdict = "yes" if t["load"] <= TARGET_SECONDS else "NO"
        print(f"{name:<30} {t['import']:>9.1f} {t['load']:>11.1f} {t['first_call']:>15.1f}  {verdict}", flush=True)
    print(f"slowest cold zoo.load: {worst:.1f} s (target <= {TARGET_SECONDS:.0f} s)")
    if "mpnet-base" in names:  # its first use unpacks all-mpnet-base-v2 from the part-wheels, once
        first, again = cold_load("mpnet-base", runs=2)
        print(
            f"mpnet-base: first use {first['load']:.1f} s, then in a new process {again['load']:.1f} s (unpacked once)"
        )
    if not args.no_anchor:
        anchor_name = "inferlite-glove"
        shipped = cold_load(anchor_name)["load"]
        computed = cold_load(anchor_name, "without-shipped-tables")["load"]
        print(
            f"anchor, same run: {anchor_name} computing its MiniLM word table {computed:.1f} s vs the shipped "
            f"table {shipped:.1f} s ({computed / shipped:.1f}x faster)"
        )
    return 0 if worst <= TARGET_SECONDS else 1


if __name__ == "__main__":
    os.chdir(REPO)
    sys.exit(main())
