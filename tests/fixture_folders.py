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


MULTI_VECTOR_FOLDERS = os.path.join(FIXTURES, "multi_vector_folders")
MULTI_VECTOR_REFERENCE = os.path.join(FIXTURES, "multi_vector_folders_reference")
# classic ColBERT (BERT: fixed expansion not attended, punctuation skipped), its PyLate layout, and ModernBERT
# ("min" expansion attended, a Dense with a bias, MeanMaxSim): benchmarks/anchors/multi_vector_folders.py
MULTI_VECTOR_FAMILY_FOLDERS = ["bert_colbert", "bert_pylate", "modernbert_colbert"]
# a query longer than any fixture's query limit (benchmarks/anchors/multi_vector_folders.py's LONG_QUERY)
LONG_QUERY = " ".join(["what is the cat on the mat doing near the dog"] * 4)


def reference_texts():
    """The texts the anchors encoded for the fixtures' references: the first 12 of minilm_reference/sentences.json
    and every 120th hostile text (benchmarks/anchors/sparse_folders.py's `reference_sentences`; the multi-vector
    anchor adds `LONG_QUERY`)."""
    with open(os.path.join(FIXTURES, "minilm_reference", "sentences.json"), encoding="utf-8") as f:
        sentences = json.load(f)
    with open(os.path.join(FIXTURES, "hostile_texts", "texts.json"), encoding="utf-8") as f:
        hostile = json.load(f)[::120]
    return sentences[:12] + hostile
