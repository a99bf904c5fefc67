"""Tiny random sentence-transformers MultiVectorEncoder (ColBERT) folders, and sentence-transformers' token vectors
for them (tests/fixtures/multi_vector_folders/, tests/fixtures/multi_vector_folders_reference/).

Runs in the anchor venv (PyTorch, transformers, sentence-transformers ≥ 6):

    .anchor-venv/bin/python benchmarks/anchors/multi_vector_folders.py

Each folder takes the backbone and tokenizer of a tiny folder of tests/fixtures/st_folders/ (make_folders.py there),
adds the markers "[Q]" and "[D]" to its tokenizer as special tokens (the embedding matrix grows by two rows), draws
every parameter anew (weights N(0, 0.2), norm scales N(1, 0.1)) and saves it as sentence-transformers saves a
MultiVectorEncoder — Transformer (query_expansion, document_length) → Dense on token embeddings → MultiVectorMask →
Normalize, prompts {"query": "[Q] ", "document": "[D] "}:

- `bert_colbert`: classic ColBERT — queries expanded to 16 tokens with [MASK] that the encoder does *not* attend to
  (`attend` false), documents cut at 40 tokens, punctuation skipped on the document side, Dense 32 → 24 without bias;
- `modernbert_colbert`: expansion tokens attended (`attend` true, PyLate's `attend_to_expansion_tokens`), strategy
  "min" to 12 (longer queries keep their tokens up to `query_length` 20), Dense with a bias, no skip-list,
  similarity "meanmaxsim";
- `bert_pylate`: `bert_colbert`'s files in PyLate 1.x's layout (modules.json [Transformer, pylate Dense], the
  ColBERT knobs as flat keys of config_sentence_transformers.json: query_prefix, document_prefix, query_length,
  document_length, attend_to_expansion_tokens, skiplist_words, do_query_expansion), which sentence-transformers 6
  loads through its legacy path.

The reference (`<folder>.npz`): every text's token rows of `encode_query` and `encode_document`, concatenated
(`query`, `document`) with their lengths (`query_lengths`, `document_lengths`), and the `similarity` of the queries
against the documents, for the reference sentences (the first 12 of tests/fixtures/minilm_reference/sentences.json,
every 120th hostile text, and a query longer than any query length); provenance.json the versions.
"""

import json
import os
import shutil
import string
import tempfile

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
FIXTURES = os.path.join(ROOT, "tests", "fixtures")
TARGET = os.path.join(FIXTURES, "multi_vector_folders")
REFERENCE = os.path.join(FIXTURES, "multi_vector_folders_reference")
SOURCES = {"bert": "bert_mean_normalize_old", "modernbert": "modernbert_mean_prompts_new"}
MARKERS = {"query": "[Q] ", "document": "[D] "}
TOKENIZER_FILES = ("tokenizer.json", "tokenizer_config.json", "special_tokens_map.json")
LONG_QUERY = " ".join(["what is the cat on the mat doing near the dog"] * 4)


def reference_sentences():
    with open(os.path.join(FIXTURES, "minilm_reference", "sentences.json"), encoding="utf-8") as f:
        sentences = json.load(f)
    with open(os.path.join(FIXTURES, "hostile_texts", "texts.json"), encoding="utf-8") as f:
        hostile = json.load(f)[::120]
    return sentences[:12] + hostile + [LONG_QUERY]


def backbone_folder(family, seed, hf_folder):
    """The source folder's backbone with the two markers added to its tokenizer, every parameter drawn anew."""
    import torch
    from transformers import AutoModel, AutoTokenizer

    source = os.path.join(FIXTURES, "st_folders", SOURCES[family])
    model = AutoModel.from_pretrained(source)
    tokenizer = AutoTokenizer.from_pretrained(source)
    tokenizer.add_special_tokens({"additional_special_tokens": [marker.strip() for marker in MARKERS.values()]})
    model.resize_token_embeddings(len(tokenizer))
    generator = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        for name, parameter in model.named_parameters():
            noise = torch.randn(parameter.shape, generator=generator)
            parameter.copy_(1 + 0.1 * noise if "norm" in name.lower() else 0.2 * noise)
    model.save_pretrained(hf_folder)
    tokenizer.save_pretrained(hf_folder)
    return model


def multi_vector_encoder(hf_folder, expansion, document_length, out_features, bias, skiplist, similarity, seed):
    import torch
    from sentence_transformers import MultiVectorEncoder
    from sentence_transformers.base.modules import Dense, Normalize, Transformer
    from sentence_transformers.multi_vector_encoder.modules import MultiVectorMask

    transformer = Transformer(
        hf_folder,
        query_expansion=expansion,
        query_length=20 if expansion["strategy"] == "min" else None,
        document_length=document_length,
    )
    torch.manual_seed(seed)
    dense = Dense(
        in_features=transformer.get_embedding_dimension(),
        out_features=out_features,
        bias=bias,
        activation_function=torch.nn.Identity(),
        module_input_name="token_embeddings",
    )
    with torch.no_grad():
        dense.linear.weight.normal_(0, 0.3)
        if bias:
            dense.linear.bias.normal_(0, 0.3)
    return MultiVectorEncoder(
        modules=[
            transformer,
            dense,
            MultiVectorMask(skiplist_words=skiplist),
            Normalize(module_input_name="token_embeddings"),
        ],
        prompts=dict(MARKERS),
        similarity_fn_name=similarity,
        device="cpu",
    )


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
    os.makedirs(REFERENCE, exist_ok=True)
    queries = [row.float().numpy() for row in encoder.encode_query(texts, convert_to_numpy=False)]
    documents = [row.float().numpy() for row in encoder.encode_document(texts, convert_to_numpy=False)]
    similarity = encoder.similarity(
        encoder.encode_query(texts, convert_to_numpy=False), encoder.encode_document(texts, convert_to_numpy=False)
    )
    np.savez_compressed(
        os.path.join(REFERENCE, f"{name}.npz"),
        query=np.concatenate(queries),
        query_lengths=np.array([len(row) for row in queries]),
        document=np.concatenate(documents),
        document_lengths=np.array([len(row) for row in documents]),
        similarity=similarity.float().numpy(),
    )


def pylate_layout(source, target):
    """`source` (an ST-native bert_colbert folder) rewritten as PyLate 1.x saves a ColBERT model."""
    shutil.rmtree(target, ignore_errors=True)
    shutil.copytree(source, target)
    with open(os.path.join(source, "modules.json"), encoding="utf-8") as f:
        modules = json.load(f)
    dense_path = next(entry["path"] for entry in modules if entry["type"].endswith("Dense"))
    for entry in modules:
        if entry["path"] not in ("", dense_path):
            shutil.rmtree(os.path.join(target, entry["path"]), ignore_errors=True)
    with open(os.path.join(target, "modules.json"), "w", encoding="utf-8") as f:
        json.dump(
            [
                {"idx": 0, "name": "0", "path": "", "type": "sentence_transformers.models.Transformer"},
                {"idx": 1, "name": "1", "path": dense_path, "type": "pylate.models.Dense.Dense"},
            ],
            f,
            indent=2,
        )
    with open(os.path.join(target, dense_path, "config.json"), encoding="utf-8") as f:
        dense = json.load(f)
    dense = {key: dense[key] for key in ("in_features", "out_features", "bias")}
    dense["activation_function"] = "torch.nn.modules.linear.Identity"
    with open(os.path.join(target, dense_path, "config.json"), "w", encoding="utf-8") as f:
        json.dump(dense, f, indent=2)
    with open(os.path.join(target, "sentence_bert_config.json"), "w", encoding="utf-8") as f:
        json.dump({"max_seq_length": 40, "do_lower_case": False}, f, indent=2)
    with open(os.path.join(target, "config_sentence_transformers.json"), encoding="utf-8") as f:
        settings = json.load(f)
    settings.pop("prompts", None)
    settings.pop("default_prompt_name", None)
    settings.update(
        {
            "model_type": "ColBERT",
            "query_prefix": "[Q] ",
            "document_prefix": "[D] ",
            "query_length": 16,
            "document_length": 40,
            "attend_to_expansion_tokens": False,
            "skiplist_words": list(string.punctuation),
            "do_query_expansion": True,
            "similarity_fn_name": "MaxSim",
            "__version__": {"pylate": "1.3.0"},
        }
    )
    with open(os.path.join(target, "config_sentence_transformers.json"), "w", encoding="utf-8") as f:
        json.dump(settings, f, indent=2)
    print("wrote", target)
    return target


def main():
    import torch
    from sentence_transformers import MultiVectorEncoder

    texts = reference_sentences()
    with tempfile.TemporaryDirectory() as scratch:
        bert = os.path.join(scratch, "bert")
        backbone_folder("bert", 200, bert)
        encoder = multi_vector_encoder(
            bert,
            {"strategy": "fixed", "attend": False, "length": 16},
            document_length=40,
            out_features=24,
            bias=False,
            skiplist=list(string.punctuation),
            similarity="maxsim",
            seed=201,
        )
        folder = save(encoder, "bert_colbert")
        record(encoder, "bert_colbert", texts)
        pylate = pylate_layout(folder, os.path.join(TARGET, "bert_pylate"))
        record(MultiVectorEncoder(pylate, device="cpu"), "bert_pylate", texts)
        modernbert = os.path.join(scratch, "modernbert")
        backbone_folder("modernbert", 210, modernbert)
        encoder = multi_vector_encoder(
            modernbert,
            {"strategy": "min", "attend": True, "length": 12},
            document_length=40,
            out_features=16,
            bias=True,
            skiplist=None,
            similarity="meanmaxsim",
            seed=211,
        )
        save(encoder, "modernbert_colbert")
        record(encoder, "modernbert_colbert", texts)
    import sentence_transformers
    import transformers

    with open(os.path.join(REFERENCE, "provenance.json"), "w", encoding="utf-8") as f:
        versions = {
            "sentence_transformers": sentence_transformers.__version__,
            "transformers": transformers.__version__,
            "torch": torch.__version__,
        }
        json.dump({"made_by": "benchmarks/anchors/multi_vector_folders.py", **versions}, f, indent=2)
        f.write("\n")


if __name__ == "__main__":
    main()
