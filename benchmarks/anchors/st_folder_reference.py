"""sentence-transformers' outputs on the tiny folders and on all-mpnet-base-v2, recorded as fixtures.

Runs in the anchor venv (PyTorch + sentence-transformers, `make anchor-venv`), never in the
project's; the suite then compares against what it wrote, without PyTorch:

    .anchor-venv/bin/python benchmarks/anchors/st_folder_reference.py tiny
    .anchor-venv/bin/python benchmarks/anchors/st_folder_reference.py tiny --only roberta_mean_normalize_new
    .anchor-venv/bin/python benchmarks/anchors/st_folder_reference.py mpnet --folder <assembled folder>

`tiny`: for every folder of tests/fixtures/st_folders/ (see make_folders.py there), the vectors of
`encode`, `encode_query`, `encode_document` and `encode(prompt="")` for the reference sentences
(tests/fixtures/minilm_reference/sentences.json, every 40th hostile text) into
tests/fixtures/st_folders_reference/<folder>.npz; Hugging Face MPNet's relative-position buckets
for j − i in [−1100, 1100) into mpnet_buckets.json; library versions into provenance.json. With
`--only`, just the folders named (added to a recording made earlier; provenance.json records the
library versions of each such addition).
`mpnet`: all-mpnet-base-v2's `encode` of the reference sentences and every 120th hostile text into
tests/fixtures/mpnet_reference/.
"""

import argparse
import hashlib
import json
import os

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
FIXTURES = os.path.join(ROOT, "tests", "fixtures")


def reference_sentences(hostile_step):
    with open(os.path.join(FIXTURES, "minilm_reference", "sentences.json"), encoding="utf-8") as f:
        sentences = json.load(f)
    with open(os.path.join(FIXTURES, "hostile_texts", "texts.json"), encoding="utf-8") as f:
        hostile = json.load(f)[::hostile_step]
    return sentences + hostile


def versions():
    import sentence_transformers
    import torch
    import transformers

    return {
        "sentence_transformers": sentence_transformers.__version__,
        "transformers": transformers.__version__,
        "torch": torch.__version__,
    }


def tiny(args):
    import torch
    from sentence_transformers import SentenceTransformer
    from transformers.models.mpnet.modeling_mpnet import MPNetEncoder

    sentences = reference_sentences(40)
    folders = os.path.join(FIXTURES, "st_folders")
    out = os.path.join(FIXTURES, "st_folders_reference")
    os.makedirs(out, exist_ok=True)
    if args.only:
        with open(os.path.join(out, "sentences.json"), encoding="utf-8") as f:
            if json.load(f) != sentences:
                raise SystemExit("the reference sentences changed: record every folder (no --only)")
    else:
        with open(os.path.join(out, "sentences.json"), "w", encoding="utf-8") as f:
            json.dump(sentences, f, ensure_ascii=False)
    for name in sorted(os.listdir(folders)):
        folder = os.path.join(folders, name)
        if not os.path.isdir(folder) or (args.only and name not in args.only):
            continue
        model = SentenceTransformer(folder, device="cpu")
        outputs = {
            "default": model.encode(sentences, batch_size=32),
            "query": model.encode_query(sentences, batch_size=32),
            "document": model.encode_document(sentences, batch_size=32),
            "no_prompt": model.encode(sentences, batch_size=32, prompt=""),
        }
        np.savez(os.path.join(out, f"{name}.npz"), **{k: v.astype(np.float32) for k, v in outputs.items()})
        print(name, {k: v.shape for k, v in outputs.items()}, model.max_seq_length)
    if args.only:
        path = os.path.join(out, "provenance.json")
        with open(path) as f:
            provenance = json.load(f)
        provenance.setdefault("added_later", {}).update({name: versions() for name in args.only})
        with open(path, "w") as f:
            json.dump(provenance, f, indent=2)
        return
    relative = torch.arange(-1100, 1100)
    buckets = MPNetEncoder.relative_position_bucket(relative, num_buckets=32, max_distance=128)
    with open(os.path.join(out, "mpnet_buckets.json"), "w") as f:
        json.dump(
            {"relative_positions": [-1100, 1100], "num_buckets": 32, "max_distance": 128, "buckets": buckets.tolist()},
            f,
        )
    with open(os.path.join(out, "provenance.json"), "w") as f:
        json.dump(
            {
                **versions(),
                "num_sentences": len(sentences),
                "written_by": "benchmarks/anchors/st_folder_reference.py tiny",
            },
            f,
            indent=2,
        )


def mpnet(args):
    from sentence_transformers import SentenceTransformer

    sentences = reference_sentences(120)
    model = SentenceTransformer(args.folder, device="cpu")
    vectors = model.encode(sentences, batch_size=32).astype(np.float32)
    out = os.path.join(FIXTURES, "mpnet_reference")
    os.makedirs(out, exist_ok=True)
    np.save(os.path.join(out, "embeddings.npy"), vectors)
    with open(os.path.join(out, "sentences.json"), "w", encoding="utf-8") as f:
        json.dump(sentences, f, ensure_ascii=False)
    with open(os.path.join(args.folder, "model.safetensors"), "rb") as f:
        digest = hashlib.file_digest(f, "sha256").hexdigest()
    provenance = {
        **versions(),
        "reference": "SentenceTransformer(all-mpnet-base-v2 folder).encode(batch_size=32)",
        "model_safetensors_sha256": digest,
        "max_seq_length": model.max_seq_length,
        "num_sentences": len(sentences),
        "dim": int(vectors.shape[1]),
    }
    with open(os.path.join(out, "provenance.json"), "w") as f:
        json.dump(provenance, f, indent=2)
    print(provenance)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("task", choices=["tiny", "mpnet"])
    parser.add_argument("--folder", help="the all-mpnet-base-v2 folder (mpnet)")
    parser.add_argument("--only", nargs="+", help="tiny: record just these folders of tests/fixtures/st_folders")
    args = parser.parse_args()
    {"tiny": tiny, "mpnet": mpnet}[args.task](args)


if __name__ == "__main__":
    main()
