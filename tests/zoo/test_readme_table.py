"""The README's zoo table is the one generated from zoo/index.json."""

import os

import pytest

from keras_sentemb.zoo.zoo_index import read_zoo_index
from zoo.recipes.readme_table import END, START, replace_table, zoo_table
from zoo.recipes.zoo_folder import ZOO_DIR

README = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), "README.md")


def test_the_readme_table_matches_the_zoo_index():
    text = open(README, encoding="utf-8").read()
    table = text.split(START, 1)[1].split(END, 1)[0].strip()
    assert table == zoo_table(read_zoo_index(ZOO_DIR)), (
        "run `python -m zoo.recipes.readme_table README.md` after a zoo build"
    )


def test_the_table_lists_metrics_and_replacing_needs_markers():
    index = {
        "models": {
            "m": {
                "version": 2,
                "size_bytes": 1_500_000,
                "use": "tests",
                "metrics": {
                    "stsb_test_spearman": 80.0,
                    "stsb_test_hamming_spearman": 78.5,
                    "sentences_per_second": 1234,
                },
            }
        }
    }
    row = zoo_table(index).splitlines()[2]
    assert row == "| `m` v2 | 1.50 MB | 1,234 sent/s | 80.00 / 78.50 (Hamming) | tests |"
    assert replace_table(f"a\n{START}\nold\n{END}\nb", "new") == f"a\n{START}\nnew\n{END}\nb"
    with pytest.raises(ValueError, match="lacks the markers"):
        replace_table("no markers", "new")
