"""Checks the sizes and counts that docs/zoo.md states against what `make wheel` built.

    python .ci/documented_sizes.py dist docs/zoo.md      # run by .ci/wheel_smoke after `make wheel`

A figure in the docs is marked by an HTML comment in front of it (invisible once rendered):
`<!-- size of keras_sentemb-*.whl -->0.4 MB` is the size of the file of `dist/` that the glob names,
in MB (10^6 bytes) at the precision written; `<!-- count of zoo models -->12` is the number of
models in the built zoo wheel's `index.json`. Each must equal what was built, rounded the same way;
the script prints each figure beside its measurement and exits 1 naming any that disagree.
"""

import glob
import json
import os
import re
import sys
import zipfile

MARK = re.compile(r"<!-- (size of (?P<pattern>\S+)|count of zoo models) -->(?P<value>\d+(?:\.(?P<decimals>\d+))?)")


def zoo_model_count(dist):
    (wheel,) = glob.glob(os.path.join(dist, "keras_sentemb_zoo-*.whl"))
    with zipfile.ZipFile(wheel) as archive:
        return len(json.loads(archive.read("keras_sentemb_zoo/index.json"))["models"])


def main(dist, document):
    text = open(document, encoding="utf-8").read()
    marks = list(MARK.finditer(text))
    if not marks:
        print(f"{document}: no marked figures")
        return 1
    wrong = []
    for mark in marks:
        line = text.count("\n", 0, mark.start()) + 1
        written = mark.group("value")
        if mark.group("pattern"):
            (path,) = glob.glob(os.path.join(dist, mark.group("pattern")))
            measured = f"{os.path.getsize(path) / 1e6:.{len(mark.group('decimals') or '')}f}"
            what = f"{os.path.basename(path)} ({os.path.getsize(path):,} bytes) in MB"
        else:
            measured, what = str(zoo_model_count(dist)), "zoo models in the built wheel"
        print(f"{document}:{line}: {what}: documented {written}, measured {measured}")
        if written != measured:
            wrong.append(f"{document}:{line}: documents {written} for {what}, the build gives {measured}")
    for message in wrong:
        print(f"error: {message}")
    return 1 if wrong else 0


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:]))
