"""sentence-transformers' outputs on the tiny folders and on all-mpnet-base-v2, recorded as fixtures.

Runs in the anchor venv (PyTorch + sentence-transformers, `make anchor-venv`), never in the
project's; the suite then compares against what it wrote, without PyTorch:

    .anchor-venv/bin/python benchmarks/anchors/st_folder_reference.py tiny
    .anchor-venv/bin/python benchmarks/anchors/st_folder_reference.py tiny --only roberta_mean_normalize_new
    .anchor-venv/bin/python benchmarks/anchors/st_folder_reference.py mpnet --folder <assembled folder>
    .anchor-venv/bin/python benchmarks/anchors/st_folder_reference.py unigram-tokenizer
    .anchor-venv/bin/python benchmarks/anchors/st_folder_reference.py resave --folder xlm_roberta_mean_normalize_new

`tiny`: for every folder of tests/fixtures/st_folders/ (see make_folders.py there), the vectors of
`encode`, `encode_query`, `encode_document` and `encode(prompt="")` for the reference sentences
(tests/fixtures/minilm_reference/sentences.json, every 40th hostile text) into
tests/fixtures/st_folders_reference/<folder>.npz; Hugging Face MPNet's relative-position buckets
for j − i in [−1100, 1100) into mpnet_buckets.json; library versions into provenance.json. With
`--only`, just the folders named (added to a recording made earlier; provenance.json records the
library versions of each such addition).
`resave --folder NAME`: the fixture folder NAME as sentence-transformers saves it under transformers 5
(tests/fixtures/st_folders/<stem>_transformers5; XLM-R's tokenizer.json then holds WhitespaceSplit + Metaspace).
`unigram-tokenizer`: tests/fixtures/unigram_source/spm.model (see tests/fixtures/st_folders/make_folders.py)
converted by transformers' `XLMRobertaConverter`, as XLM-RoBERTa's tokenizer.json was, into
tests/fixtures/unigram_source/tokenizer.json (with XLM-R's added tokens: "<mask>" strips on its left).
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


def use_tokenizer_json(model, folder):
    """transformers 5 builds XLM-RoBERTa's tokenizer pipeline itself (Precompiled, then WhitespaceSplit +
    Metaspace) instead of running the folder's tokenizer.json (as transformers 4 and Hugging Face
    `tokenizers` do). The reference is the model on tokenizer.json's ids: the standard every tokenizer
    here meets. Returns how many texts the two pipelines give other ids: of the 12,000 hostile texts
    and of the 118 ordinary sentences."""
    from tokenizers import Tokenizer

    reference = Tokenizer.from_file(os.path.join(folder, "tokenizer.json"))
    reference.no_truncation()
    reference.no_padding()
    counts = {}
    with open(os.path.join(FIXTURES, "minilm_reference", "sentences.json"), encoding="utf-8") as f:
        sentences = json.load(f)
    with open(os.path.join(FIXTURES, "hostile_texts", "texts.json"), encoding="utf-8") as f:
        hostile = json.load(f)
    for label, texts in (("hostile", hostile), ("sentences", sentences)):
        theirs = model.tokenizer(texts, add_special_tokens=False)["input_ids"]
        ours = [encoding.ids for encoding in reference.encode_batch(texts, add_special_tokens=False)]
        counts[label] = f"{sum(a != b for a, b in zip(theirs, ours))} of {len(texts)}"
    model.tokenizer._tokenizer = Tokenizer.from_file(os.path.join(folder, "tokenizer.json"))
    return counts


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
    pipeline_differences = {}
    for name in sorted(os.listdir(folders)):
        folder = os.path.join(folders, name)
        if not os.path.isdir(folder) or (args.only and name not in args.only):
            continue
        model = SentenceTransformer(folder, device="cpu")
        with open(os.path.join(folder, "tokenizer_config.json")) as f:
            # transformers 5 rebuilds these tokenizers' pipelines itself: XLM-R's (multilingual-e5's), Qwen's, Gemma's
            if json.load(f).get("tokenizer_class") in ("XLMRobertaTokenizer", "Qwen2Tokenizer", "GemmaTokenizer"):
                pipeline_differences[name] = use_tokenizer_json(model, folder)
                print(name, "transformers' own pipeline differs from tokenizer.json on", pipeline_differences[name])
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
        if pipeline_differences:
            provenance.setdefault("transformers_xlm_roberta_pipeline_differs_from_tokenizer_json", {}).update(
                pipeline_differences
            )
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
                "transformers_xlm_roberta_pipeline_differs_from_tokenizer_json": pipeline_differences,
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


def unigram_tokenizer(args):
    from tokenizers import AddedToken
    from transformers.convert_slow_tokenizer import XLMRobertaConverter

    source = os.path.join(FIXTURES, "unigram_source")

    class SlowTokenizer:
        """What the converter reads of a slow XLMRobertaTokenizer."""

        vocab_file = os.path.join(source, "spm.model")
        add_prefix_space = True

        def convert_tokens_to_ids(self, token):
            return {"<s>": 0, "<pad>": 1, "</s>": 2, "<unk>": 3}[token]

    tokenizer = XLMRobertaConverter(SlowTokenizer()).converted()
    tokenizer.add_special_tokens(["<s>", "<pad>", "</s>", "<unk>"])
    tokenizer.add_special_tokens([AddedToken("<mask>", lstrip=True, special=True)])
    tokenizer.save(os.path.join(source, "tokenizer.json"))
    with open(os.path.join(source, "provenance.json"), "w") as f:
        json.dump(
            {**versions(), "written_by": "benchmarks/anchors/st_folder_reference.py unigram-tokenizer"}, f, indent=2
        )
    print("wrote", os.path.join(source, "tokenizer.json"))


def resave(args):
    """`--folder NAME` of tests/fixtures/st_folders loaded and saved by sentence-transformers under this venv's
    transformers (5.x) as NAME's stem + "_transformers5": what a user's fine-tuned folder looks like this year
    (transformers 5 writes its own tokenizer pipeline into tokenizer.json)."""
    from sentence_transformers import SentenceTransformer

    source = os.path.join(FIXTURES, "st_folders", args.folder)
    target = os.path.join(FIXTURES, "st_folders", args.folder.rsplit("_", 1)[0] + "_transformers5")
    SentenceTransformer(source, device="cpu").save(target)
    os.remove(os.path.join(target, "README.md"))  # a generated model card whose code blocks are not ours
    with open(os.path.join(target, "tokenizer.json"), encoding="utf-8") as f:
        print("wrote", target, "pre-tokenizer", json.load(f)["pre_tokenizer"])


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("task", choices=["tiny", "mpnet", "unigram-tokenizer", "resave"])
    parser.add_argument("--folder", help="the all-mpnet-base-v2 folder (mpnet); a fixture folder's name (resave)")
    parser.add_argument("--only", nargs="+", help="tiny: record just these folders of tests/fixtures/st_folders")
    args = parser.parse_args()
    {"tiny": tiny, "mpnet": mpnet, "unigram-tokenizer": unigram_tokenizer, "resave": resave}[args.task](args)


if __name__ == "__main__":
    main()
