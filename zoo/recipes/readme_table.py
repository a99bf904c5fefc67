"""The README's zoo table, generated from `zoo/index.json` (so it never drifts).

    python -m zoo.recipes.readme_table README.md     # rewrites the marked table in place

The table sits between `<!-- zoo-table:start -->` and `<!-- zoo-table:end -->`.
"""

import os
import sys

from keras_sentemb.utils.atomic_files import atomic_open
from keras_sentemb.zoo import zoo_dir
from keras_sentemb.zoo.zoo_index import read_zoo_index
from zoo.recipes.zoo_folder import ZOO_DIR  # noqa: F401  (points keras_sentemb.zoo at zoo/)

START, END = "<!-- zoo-table:start -->", "<!-- zoo-table:end -->"


def _sts(metrics):
    parts = []
    if "stsb_test_spearman" in metrics:
        parts.append(f"{metrics['stsb_test_spearman']:.2f}")
    if "stsb_test_hamming_spearman" in metrics:
        parts.append(f"{metrics['stsb_test_hamming_spearman']:.2f} (Hamming)")
    if "stsb_test_pair_spearman" in metrics:
        parts.append(f"{metrics['stsb_test_pair_spearman']:.2f} (pair score)")
    return " / ".join(parts)


def _speed(metrics):
    if "sentences_per_second" in metrics:
        return f"{metrics['sentences_per_second']:,} sent/s"
    if "pairs_per_second" in metrics:
        return f"{metrics['pairs_per_second']:,} pairs/s"
    return ""


def zoo_table(index):
    """Markdown table rows (model, size, speed, STS-B, use) for a zoo index dict."""
    lines = ["| model | size | speed (2-core CPU) | STS-B test Spearman | what it is for |", "|---|---:|---:|---|---|"]
    for name in sorted(index["models"]):
        entry = index["models"][name]
        lines.append(
            f"| `{name}` v{entry['version']} | {entry['size_bytes'] / 1e6:.2f} MB | "
            f"{_speed(entry['metrics'])} | {_sts(entry['metrics'])} | {entry['use']} |"
        )
    return "\n".join(lines)


def replace_table(text, table):
    """`text` with the part between the markers replaced by `table`."""
    if START not in text or END not in text:
        raise ValueError(f"the README lacks the markers {START} … {END}")
    head, rest = text.split(START, 1)
    _, tail = rest.split(END, 1)
    return f"{head}{START}\n{table}\n{END}{tail}"


def main(argv=None):
    path = (argv or sys.argv[1:] or ["README.md"])[0]
    with open(path, encoding="utf-8") as f:
        text = f.read()
    updated = replace_table(text, zoo_table(read_zoo_index(zoo_dir())))
    with atomic_open(path, "wb") as f:
        f.write(updated.encode("utf-8"))
    print(f"{os.path.basename(path)}: zoo table updated")


if __name__ == "__main__":
    main()
