"""PyLate's side of benchmarks/late_interaction_speed.py, in its own venv (`make pylate-venv`: PyLate 1.6 pins
sentence-transformers 5.3 and transformers ≤ 5.3, so it cannot share the anchor venv):

    .pylate-venv/bin/python benchmarks/anchors/pylate_speed_anchor.py folder --output F     # make the real-size folder
    .pylate-venv/bin/python benchmarks/anchors/pylate_speed_anchor.py encode --folder F --workload W.json --output D

`folder`: ModernBERT-base's shape at real size with random weights (22 layers of 768, 12 heads, intermediate 1,152,
local attention 128 with global attention every third layer, 50,368 embeddings; the tokenizer of the tiny ModernBERT
fixture: speed does not depend on the weights' values or on the vocabulary's) made a PyLate ColBERT (a 768 → 128
projection, query length 32, document length `--document-length`) and saved in PyLate's layout, which
`MultiVectorEncoder.from_pretrained` reads.
`encode`: `ColBERT.encode(documents, is_query=False)` on torch float32 — a warm-up batch, then the workload timed;
prints one JSON line (documents/s, token vectors/s, peak RSS) and saves the first documents' vectors.
"""

import argparse
import json
import os
import resource
import shutil
import tempfile
import time

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TOKENIZER = os.path.join(REPO, "tests", "fixtures", "st_folders", "modernbert_mean_prompts_new")


def make_folder(output, document_length):
    import torch
    from pylate import models
    from transformers import ModernBertConfig, ModernBertModel

    torch.manual_seed(0)
    config = ModernBertConfig(
        vocab_size=50368, hidden_size=768, intermediate_size=1152, num_hidden_layers=22, num_attention_heads=12,
        global_attn_every_n_layers=3, local_attention=128, max_position_embeddings=8192, pad_token_id=3,
        bos_token_id=1, eos_token_id=2, cls_token_id=1, sep_token_id=2,
    )  # fmt: skip
    with tempfile.TemporaryDirectory() as hf_folder:
        ModernBertModel(config).save_pretrained(hf_folder)
        for name in ("tokenizer.json", "tokenizer_config.json", "special_tokens_map.json"):
            if os.path.exists(os.path.join(TOKENIZER, name)):
                shutil.copy(os.path.join(TOKENIZER, name), hf_folder)
        model = models.ColBERT(
            model_name_or_path=hf_folder, embedding_size=128, query_length=32, document_length=document_length,
            device="cpu",
        )  # fmt: skip
        shutil.rmtree(output, ignore_errors=True)
        model.save(output)
    print(json.dumps({"folder": output}))


def encode(folder, workload, output):
    import numpy as np
    from pylate import models

    with open(workload, encoding="utf-8") as f:
        work = json.load(f)
    documents, batch = work["documents"], work["batch_size"]
    model = models.ColBERT(model_name_or_path=folder, device="cpu")
    model.encode(documents[: 2 * batch], is_query=False, batch_size=batch, show_progress_bar=False)
    start = time.perf_counter()
    vectors = model.encode(documents, is_query=False, batch_size=batch, show_progress_bar=False)
    seconds = time.perf_counter() - start
    vectors = [np.asarray(v, np.float32) for v in vectors]
    np.save(os.path.join(output, "pylate.npy"), np.concatenate(vectors[: work["compared"]]))
    print(json.dumps({"documents_per_s": len(documents) / seconds,
                      "vectors_per_s": sum(len(v) for v in vectors) / seconds,
                      "vectors_per_document": float(np.mean([len(v) for v in vectors])),
                      "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))  # fmt: skip


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("task", choices=["folder", "encode"])
    parser.add_argument("--folder")
    parser.add_argument("--workload")
    parser.add_argument("--output", required=True)
    parser.add_argument("--document-length", type=int, default=256)
    args = parser.parse_args()
    if args.task == "folder":
        make_folder(args.output, args.document_length)
    else:
        encode(args.folder, args.workload, args.output)


if __name__ == "__main__":
    main()
