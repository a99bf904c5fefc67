"""Parity table of reranker folders: our `CrossEncoder.from_pretrained(folder)` against sentence-transformers'
`CrossEncoder.predict` on tiny random folders of each family's reranker shape, and the raw-string SavedModel
(`export_cross_encoder`, pair signature) against `predict_pairs`.

    python benchmarks/reranker_parity.py

The folders and sentence-transformers' scores were written in the anchor venv by
benchmarks/anchors/reranker_folder_reference.py (tests/fixtures/reranker_folders/, ..._reference/): 76 pairs of
ordinary sentences, hostile texts and documents longer than each folder's `max_length` (both texts long, one
long). Targets: max |Δ| ≤ 1e-4 to sentence-transformers, SavedModel ≤ 1e-5 to `predict_pairs`.
"""

import json
import os
import shutil
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402
from common import REPO, machine_description  # noqa: E402

from keras_sentemb.export.pair_model_export import export_cross_encoder  # noqa: E402
from keras_sentemb.models import CrossEncoder  # noqa: E402

FIXTURES = os.path.join(REPO, "tests", "fixtures")
FOLDERS = os.path.join(FIXTURES, "reranker_folders")
REFERENCE = os.path.join(FIXTURES, "reranker_folders_reference")


def saved_model_gap(model, queries, documents):
    folder = tempfile.mkdtemp()
    try:
        served = tf.saved_model.load(str(export_cross_encoder(model, os.path.join(folder, "model"))))
        scores = served.signatures["serving_default"](texts_a=tf.constant(queries), texts_b=tf.constant(documents))
        expected = model.predict_pairs(queries, documents, progress=False)
        return float(np.abs(scores["scores"].numpy().reshape(expected.shape) - expected).max())
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def main():
    with open(os.path.join(REFERENCE, "pairs.json"), encoding="utf-8") as f:
        rows = json.load(f)
    with open(os.path.join(REFERENCE, "provenance.json"), encoding="utf-8") as f:
        provenance = json.load(f)
    queries, documents = [q for q, _ in rows], [d for _, d in rows]
    print(machine_description())
    print(
        f"reference: sentence-transformers {provenance['sentence_transformers']}, transformers "
        f"{provenance['transformers']}; {len(rows)} pairs"
    )
    print(
        "| folder | architecture | head | labels | activation | max_length | pairs cut | max \\|Δ\\| to ST | SavedModel max \\|Δ\\| |"
    )
    print("|---|---|---|---|---|---|---|---|---|")
    worst = 0.0
    for name in sorted(os.listdir(FOLDERS)):
        folder = os.path.join(FOLDERS, name)
        if not os.path.isdir(folder):
            continue
        model = CrossEncoder.from_pretrained(folder)
        reference = np.load(os.path.join(REFERENCE, f"{name}.npz"))["scores"]
        scores = model.predict_pairs(queries, documents, batch_size=8, progress=False)
        gap = float(np.abs(scores - reference).max())
        worst = max(worst, gap)
        ids, _ = model.pair_rows(queries, documents)
        cut = sum(len(row) == model.tokenizer.max_length for row in ids)
        with open(os.path.join(folder, "config.json"), encoding="utf-8") as f:
            architecture = json.load(f)["architectures"][0]
        head = model.pooling + (" + prediction head" if model.prediction_head else "")
        head += " + chat template" if model.pair_template is not None else ""
        served = saved_model_gap(model, queries, documents)
        print(
            f"| {name} | {architecture} | {head} | {model.num_labels} | {model.score_activation} | "
            f"{model.tokenizer.max_length} | {cut} | {gap:.1e} | {served:.1e} |",
            flush=True,
        )
    print(f"worst max |Δ| to sentence-transformers: {worst:.1e} (target ≤ 1e-4)")


if __name__ == "__main__":
    main()
