"""The family × runtime matrix: each family's tiny sentence-transformers folder (random weights, made by
transformers' own classes) run by each runtime against the Keras model, max |Δ| of the unit vectors and the
lowest cosine (tests/families/runtime_matrix.py; the bars are tests/families/test_runtime_matrix.py's).

    python benchmarks/family_runtime_matrix.py          # ~10 minutes on 2 cores
    python benchmarks/family_runtime_matrix.py t5 qwen2 # just these families' rows

A cell is "max |Δ| (cosine ≥ c) — what ran", or the runtime's refusal.
"""

import os
import sys
import tempfile

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(REPO, "benchmarks"))
sys.path.insert(0, REPO)

from common import cpu_flags, machine_description  # noqa: E402

from tests.families.runtime_matrix import RUNTIMES, RuntimeRefused, bar_of, cell, encoder_of  # noqa: E402
from tests.families.test_family_math import FOLDERS  # noqa: E402


def main(families=()):
    unknown = sorted(set(families) - set(FOLDERS))
    if unknown:
        raise SystemExit(f"unknown families {unknown}; the matrix has {', '.join(FOLDERS)}")
    print(f"machine: {machine_description()}; CPU flags: {cpu_flags()}")
    print("| family (folder) | Keras (reference) | " + " | ".join(RUNTIMES) + " |")
    print("|---|---|" + "---|" * len(RUNTIMES))
    failures = []
    for family, folder in FOLDERS.items():
        if families and family not in families:
            continue
        encoder = encoder_of(family)
        cells = []
        for runtime in RUNTIMES:
            with tempfile.TemporaryDirectory() as work:
                try:
                    max_abs, min_cosine, ran = cell(family, runtime, work, encoder)
                except RuntimeRefused as refusal:
                    cells.append(f"refused: {str(refusal)[:90]}")
                    continue
            measure, bar = bar_of(runtime, ran)
            held = max_abs <= bar if measure == "max_abs" else min_cosine >= bar
            if not held:
                failures.append(f"{family} × {runtime}: {max_abs:.2e} / {min_cosine:.5f}")
            cells.append(f"{max_abs:.1e} (cos ≥ {min_cosine:.6f}) {ran}")
        print(f"| {family} ({folder}) | encode, TensorFlow float32 | " + " | ".join(cells) + " |", flush=True)
    print("all cells hold their bars" if not failures else "FAILED: " + "; ".join(failures))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
