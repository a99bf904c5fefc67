"""The committed fixture folders the tests read (tests/fixtures/), and the edits hostile-folder tests make to a copy."""

import json
import os
import shutil

FIXTURES = os.path.join(os.path.dirname(__file__), "fixtures")
ST_FOLDERS = os.path.join(FIXTURES, "st_folders")
SPARSE_FOLDERS = os.path.join(FIXTURES, "sparse_folders")
# one SPLADE folder of every family with a masked-LM head, and BERT's sum + log1p_relu pooling
SPARSE_FAMILY_FOLDERS = [
    "bert_splade_max",
    "distilbert_splade_max",
    "roberta_splade_max",
    "xlm_roberta_splade_max",
    "mpnet_splade_max",
    "modernbert_splade_max",
    "bert_splade_sum_log1p",
]


def copy_folder(root, name, tmp_path):
    """A copy of the fixture folder `root/name` under `tmp_path`, to edit."""
    target = tmp_path / name
    shutil.copytree(os.path.join(root, name), target)
    return target


def edit_json(path, change):
    """Rewrites the JSON file `path` with `change(value)` (or the value `change` edited in place)."""
    value = json.loads(path.read_text())
    value = change(value) or value
    path.write_text(json.dumps(value))
