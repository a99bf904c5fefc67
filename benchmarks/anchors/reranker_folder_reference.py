"""Tiny reranker folders of four families, and sentence-transformers' `CrossEncoder.predict` on them, as fixtures.

Runs in the anchor venv (PyTorch + sentence-transformers, `make anchor-venv`), never in the project's;
the suite then compares against what it wrote, without PyTorch:

    .anchor-venv/bin/python benchmarks/anchors/reranker_folder_reference.py

1. Folders (tests/fixtures/reranker_folders/<name>/): random-initialised, seeded sequence-classification
   models on the tiny configs and tokenizers of tests/fixtures/st_folders/ (`<family>ForSequenceClassification`
   as transformers builds it: BERT's pooler + classifier, XLM-R's `classifier.dense`/`out_proj`, ModernBERT's
   `head` + `classifier` with its `classifier_pooling`), one or three labels, and a Qwen3 causal LM scoring with
   its "yes"/"no" logits (Qwen3-Reranker's shape, with a chat template that renders the query and document
   roles; the tiny vocabulary's "y"/"n" tokens stand in for "yes"/"no"), each saved by sentence-transformers' `CrossEncoder.save_pretrained`: the files a user has.
2. References (tests/fixtures/reranker_folders_reference/<name>.npz): `predict` (the folder's activation)
   and `predict(activation_fn=Identity)` (the logits) of every (query, document) pair of
   tests/fixtures/reranker_folders_reference/pairs.json, many longer than the folder's `max_length`.

XLM-R's tokenizer: transformers 5 rebuilds its pipeline instead of running tokenizer.json (see
st_folder_reference.py, `use_tokenizer_json`); the reference runs the model on tokenizer.json's ids.
"""

import json
import os
import shutil

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
FIXTURES = os.path.join(ROOT, "tests", "fixtures")
SOURCES = os.path.join(FIXTURES, "st_folders")
FOLDERS = os.path.join(FIXTURES, "reranker_folders")
REFERENCE = os.path.join(FIXTURES, "reranker_folders_reference")

QWEN3_RERANKER_TEMPLATE = (
    '<|im_start|>system\nJudge whether the Document meets the Query. Answer "yes" or "no".<|im_end|>\n'
    "<|im_start|>user\n<Instruct>: Find passages\n"
    '<Query>: {{ messages | selectattr("role", "eq", "query") | map(attribute="content") | first }}\n'
    '<Document>: {{ messages | selectattr("role", "eq", "document") | map(attribute="content") | first }}'
    "<|im_end|>\n<|im_start|>assistant\n<think>\n\n</think>\n\n"
)

# name: (source fixture folder, architecture, extra config, num_labels)
FOLDER_SPECS = {
    "bert_reranker": ("bert_mean_normalize_old", "BertForSequenceClassification", {}, 1),
    "bert_three_labels": ("bert_cls_max_dense_new", "BertForSequenceClassification", {}, 3),
    "xlm_roberta_reranker": ("xlm_roberta_mean_normalize_new", "XLMRobertaForSequenceClassification", {}, 1),
    "modernbert_reranker_mean": (
        "modernbert_mean_prompts_new",
        "ModernBertForSequenceClassification",
        {"classifier_pooling": "mean", "classifier_bias": False},
        1,
    ),
    "modernbert_reranker_cls": (
        "modernbert_mean_prompts_new",
        "ModernBertForSequenceClassification",
        {"classifier_pooling": "cls", "classifier_bias": True},
        1,
    ),
    "qwen3_reranker": ("qwen3_lasttoken_prompts_new", "Qwen3ForCausalLM", {"max_position_embeddings": 256}, None),
}
TOKENIZER_FILES = ("tokenizer.json", "tokenizer_config.json", "special_tokens_map.json")


def pairs():
    """(query, document) pairs: ordinary sentences, hostile texts, and long documents (over every max_length)."""
    with open(os.path.join(FIXTURES, "minilm_reference", "sentences.json"), encoding="utf-8") as f:
        sentences = json.load(f)
    with open(os.path.join(FIXTURES, "hostile_texts", "texts.json"), encoding="utf-8") as f:
        hostile = json.load(f)[::400]
    long = [" ".join(sentences[i : i + 6]) for i in range(0, 60, 6)]
    queries = sentences[:12] + hostile[:6]
    documents = sentences[12:40] + hostile[6:] + long
    rows = [(queries[i % len(queries)], documents[i % len(documents)]) for i in range(len(documents))]
    rows += [(long[i], long[-1 - i]) for i in range(len(long))]  # both long: the halves of longest_first
    rows += [(long[i], sentences[i]) for i in range(4)]
    return rows


def make_folder(name, seed):
    import torch
    import transformers
    from sentence_transformers import CrossEncoder

    source_name, architecture, extra, num_labels = FOLDER_SPECS[name]
    source = os.path.join(SOURCES, source_name)
    with open(os.path.join(source, "config.json")) as f:
        config_dict = json.load(f)
    config_dict.update(extra, architectures=[architecture])
    if num_labels is not None:
        config_dict["num_labels"] = num_labels
        config_dict.pop("id2label", None)
        config_dict.pop("label2id", None)
    staging = os.path.join(FOLDERS, name + ".staging")
    shutil.rmtree(staging, ignore_errors=True)
    os.makedirs(staging)
    torch.manual_seed(seed)
    config = transformers.AutoConfig.for_model(**config_dict)
    if num_labels is not None:
        config.num_labels = num_labels
    model_class = getattr(transformers, architecture)
    model = model_class(config)
    with torch.no_grad():  # weights that make scores of a visible spread (the default init's are near zero)
        for module in model.modules():
            if isinstance(module, torch.nn.Linear):
                module.weight.normal_(0.0, 0.15)
                if module.bias is not None:
                    module.bias.normal_(0.0, 0.05)
            elif isinstance(module, torch.nn.Embedding):
                module.weight.normal_(0.0, 0.5)
    model.save_pretrained(staging, safe_serialization=True)
    for file in TOKENIZER_FILES:
        if os.path.isfile(os.path.join(source, file)):
            shutil.copy(os.path.join(source, file), staging)
    if architecture.endswith("ForCausalLM"):
        path = os.path.join(staging, "tokenizer_config.json")
        with open(path) as f:
            tokenizer_config = json.load(f)
        tokenizer_config["chat_template"] = QWEN3_RERANKER_TEMPLATE
        tokenizer_config["model_max_length"] = 160  # the template (~110 tiny-vocabulary tokens) and some of each text
        with open(path, "w") as f:
            json.dump(tokenizer_config, f, indent=2)
    cross_encoder = CrossEncoder(staging, device="cpu")
    final = os.path.join(FOLDERS, name)
    shutil.rmtree(final, ignore_errors=True)
    cross_encoder.save_pretrained(final)
    shutil.rmtree(staging)
    os.remove(os.path.join(final, "README.md"))  # the generated model card: its code blocks are not ours to run
    logit_score = os.path.join(final, "1_LogitScore", "config.json")
    if os.path.isfile(logit_score):
        # the tiny vocabulary has no "yes"/"no" tokens (Qwen's has): score with "y" and "n", as a folder may name
        # any pair of tokens in its LogitScore config
        with open(os.path.join(final, "tokenizer.json"), encoding="utf-8") as f:
            vocabulary = json.load(f)["model"]["vocab"]
        with open(logit_score) as f:
            settings = json.load(f)
        settings.update(true_token_id=vocabulary["y"], false_token_id=vocabulary["n"])
        with open(logit_score, "w") as f:
            json.dump(settings, f, indent=4)
    return final


def reference(name, folder, rows):
    import torch
    from sentence_transformers import CrossEncoder
    from tokenizers import Tokenizer

    model = CrossEncoder(folder, device="cpu")
    with open(os.path.join(folder, "tokenizer_config.json")) as f:
        if json.load(f).get("tokenizer_class") == "XLMRobertaTokenizer":
            model.tokenizer._tokenizer = Tokenizer.from_file(os.path.join(folder, "tokenizer.json"))
    scores = model.predict(rows, batch_size=8)
    logits = model.predict(rows, batch_size=8, activation_fn=torch.nn.Identity())
    np.savez(
        os.path.join(REFERENCE, f"{name}.npz"),
        scores=np.asarray(scores, np.float32),
        logits=np.asarray(logits, np.float32),
    )
    return {"max_seq_length": model.max_seq_length, "activation_fn": type(model.activation_fn).__name__}


def main():
    import sentence_transformers
    import torch
    import transformers

    os.makedirs(FOLDERS, exist_ok=True)
    os.makedirs(REFERENCE, exist_ok=True)
    rows = pairs()
    with open(os.path.join(REFERENCE, "pairs.json"), "w", encoding="utf-8") as f:
        json.dump(rows, f, ensure_ascii=False, indent=0)
    provenance = {
        "sentence_transformers": sentence_transformers.__version__,
        "transformers": transformers.__version__,
        "torch": torch.__version__,
        "written_by": "benchmarks/anchors/reranker_folder_reference.py",
        "folders": {},
    }
    for seed, name in enumerate(FOLDER_SPECS):
        folder = make_folder(name, seed)
        provenance["folders"][name] = reference(name, folder, rows)
        print(name, provenance["folders"][name], flush=True)
    with open(os.path.join(REFERENCE, "provenance.json"), "w") as f:
        json.dump(provenance, f, indent=2)


if __name__ == "__main__":
    main()
