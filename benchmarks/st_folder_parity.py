"""Parity table: our vectors against sentence-transformers' on every supported architecture ×
module combination × folder layout, the real all-MiniLM-L6-v2 and all-mpnet-base-v2, and the
raw-string SavedModel against `encode`; then the folders we refuse, with their errors.

    python benchmarks/st_folder_parity.py

The sentence-transformers side was recorded in the anchor venv by
benchmarks/anchors/st_folder_reference.py (tests/fixtures/st_folders_reference/,
tests/fixtures/minilm_reference/, tests/fixtures/mpnet_reference/); the tiny folders are
tests/fixtures/st_folders/ (make_folders.py there). Target: max |Δ| ≤ 1e-4 to sentence-transformers,
SavedModel ≤ 1e-5 to `encode`.
"""

import json
import os
import shutil
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402
from common import REPO, cpu_flags, machine_description  # noqa: E402

import keras_sentemb  # noqa: E402

FIXTURES = os.path.join(REPO, "tests", "fixtures")
FOLDERS = os.path.join(FIXTURES, "st_folders")
REFERENCE = os.path.join(FIXTURES, "st_folders_reference")


def describe(spec):
    parts = ["+".join(spec.pooling_modes)]
    parts += [f"Dense({d.out_features}, {d.activation}{', residual' if d.use_residual else ''})" for d in spec.dense]
    if spec.normalize:
        parts.append("Normalize")
    if spec.prompts:
        parts.append(
            f"prompts {sorted(spec.prompts)}"
            + (f" default {spec.default_prompt_name!r}" if spec.default_prompt_name else "")
        )
    if spec.truncate_dim:
        parts.append(f"truncate_dim {spec.truncate_dim}")
    return ", ".join(parts)


def saved_model_gap(encoder, texts):
    folder = tempfile.mkdtemp()
    try:
        path = keras_sentemb.export_saved_model(encoder, os.path.join(folder, "model"))
        served = tf.saved_model.load(path).signatures["serving_default"](texts=tf.constant(texts))["embedding"]
        return float(np.abs(served.numpy() - encoder.encode(texts)).max())
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def tiny_rows():
    with open(os.path.join(REFERENCE, "sentences.json"), encoding="utf-8") as f:
        sentences = json.load(f)
    rows = []
    for name in sorted(os.listdir(FOLDERS)):
        folder = os.path.join(FOLDERS, name)
        if not os.path.isdir(folder):
            continue
        spec = keras_sentemb.pretrained.read_sentence_transformers_folder(folder)
        encoder = keras_sentemb.SentenceEncoder.from_pretrained(folder)
        reference = np.load(os.path.join(REFERENCE, f"{name}.npz"))
        ours = {
            "default": encoder.encode(sentences, normalize=False),
            "query": encoder.encode_query(sentences, normalize=False),
            "document": encoder.encode_document(sentences, normalize=False),
            "no_prompt": encoder.encode(sentences, normalize=False, prompt=""),
        }
        gap = max(float(np.abs(ours[k] - reference[k]).max()) for k in ours)
        with open(os.path.join(folder, "config.json"), encoding="utf-8") as f:
            architecture = f"{json.load(f)['model_type']} ({type(encoder.tokenizer).__name__})"
        layout = {"new": "6.x", "transformers5": "6.x, saved under transformers 5"}.get(name.rsplit("_", 1)[1], "older")
        rows.append(
            (architecture, describe(spec), layout, len(sentences), gap, saved_model_gap(encoder, sentences[::5]))
        )
    return rows


def real_row(preset, fixture, label):
    with open(os.path.join(FIXTURES, fixture, "sentences.json"), encoding="utf-8") as f:
        sentences = json.load(f)
    reference = np.load(os.path.join(FIXTURES, fixture, "embeddings.npy"))
    if fixture == "minilm_reference":
        with open(os.path.join(FIXTURES, fixture, "hostile_sentences.json"), encoding="utf-8") as f:
            sentences += json.load(f)
        reference = np.concatenate([reference, np.load(os.path.join(FIXTURES, fixture, "hostile_embeddings.npy"))])
    encoder = keras_sentemb.SentenceEncoder.from_pretrained(preset)
    spec = keras_sentemb.pretrained.read_sentence_transformers_folder(
        keras_sentemb.pretrained.resolve_pretrained_dir(preset)
    )
    gap = float(np.abs(encoder.encode(sentences, batch_size=32) - reference).max())
    return (label, describe(spec), "older", len(sentences), gap, saved_model_gap(encoder, sentences[::10]))


def refused():
    """Folders we refuse, made from a tiny one, and the first line of each error."""
    cases = {
        "model_type funnel (any other)": ("config.json", lambda c: c.update(model_type="funnel")),
        "model_type llama (a decoder keras-hub converts)": ("config.json", lambda c: c.update(model_type="llama")),
        "model_type albert": ("config.json", lambda c: c.update(model_type="albert")),
        "a Router module (asymmetric towers)": (
            "modules.json",
            lambda m: m.insert(
                2, {"idx": 9, "name": "9", "path": "", "type": "sentence_transformers.base.modules.router.Router"}
            ),
        ),
        "a LayerNorm module": (
            "modules.json",
            lambda m: m.insert(
                2, {"idx": 9, "name": "9", "path": "", "type": "sentence_transformers.models.LayerNorm"}
            ),
        ),
        "Pooling include_prompt=false": ("1_Pooling/config.json", lambda c: c.update(include_prompt=False)),
        "a WordPiece tokenizer.json with a Metaspace pre-tokenizer": (
            "tokenizer.json",
            lambda t: t.update(pre_tokenizer={"type": "Metaspace"}),
        ),
    }
    lines = []
    for label, (file, change) in cases.items():
        folder = tempfile.mkdtemp()
        try:
            target = os.path.join(folder, "m")
            shutil.copytree(os.path.join(FOLDERS, "bert_mean_normalize_old"), target)
            path = os.path.join(target, file)
            with open(path, encoding="utf-8") as f:
                value = json.load(f)
            change(value)
            with open(path, "w", encoding="utf-8") as f:
                json.dump(value, f)
            try:
                keras_sentemb.SentenceEncoder.from_pretrained(target)
                lines.append((label, "LOADED (should have been refused)"))
            except (ValueError, FileNotFoundError) as error:
                lines.append((label, f"{type(error).__name__}: {str(error).replace(target, '<folder>')}"))
        finally:
            shutil.rmtree(folder, ignore_errors=True)
    return lines


def main():
    print(f"machine: {machine_description()}; CPU flags: {cpu_flags()}")
    rows = tiny_rows()
    rows.append(real_row("minilm-l6", "minilm_reference", "all-MiniLM-L6-v2 (BERT)"))
    try:
        rows.append(real_row("mpnet-base", "mpnet_reference", "all-mpnet-base-v2 (MPNet)"))
    except FileNotFoundError as error:
        print(f"all-mpnet-base-v2: not measured ({error})")
    print("\n| architecture | modules | layout | texts | max \\|Δ\\| vs sentence-transformers | SavedModel vs encode |")
    print("|---|---|---|---:|---:|---:|")
    for architecture, modules, layout, count, gap, served in rows:
        print(f"| {architecture} | {modules} | {layout} | {count} | {gap:.1e} | {served:.1e} |")
    worst = max(row[4] for row in rows)
    worst_served = max(row[5] for row in rows)
    print(
        f"\nworst: {worst:.1e} to sentence-transformers (target ≤ 1e-4: {'holds' if worst <= 1e-4 else 'MISSES'}); "
        f"SavedModel {worst_served:.1e} to encode (target ≤ 1e-5: {'holds' if worst_served <= 1e-5 else 'MISSES'})"
    )
    print("\nrefused, with their errors:")
    for label, error in refused():
        print(f"- {label}: {error}")


if __name__ == "__main__":
    main()
