"""Tokenizer parity of the 2025 families' pipelines: our in-graph and host ids against each fixture folder's own
`tokenizer.json` (Hugging Face `tokenizers`) on every Unicode code point in three contexts ("a<c>b", "A<c>",
"<c><c>": 3,336,192 texts) and on the 12,000 hostile texts, with the template's special tokens.

| pipeline | fixture |
|---|---|
| XLM-R saved by transformers 5: Precompiled, WhitespaceSplit + Metaspace, Unigram | st_folders/xlm_roberta_mean_normalize_transformers5 |
| multilingual-e5 (XLM-R's converted tokenizer.json before a BERT): Precompiled, Metaspace, Unigram | st_folders/bert_unigram_e5_prompts_new |
| Qwen2/Qwen3: NFC, Split(Qwen's expression) + ByteLevel, BPE, `$A <|endoftext|>` | qwen_tokenizer |
| Gemma/EmbeddingGemma: Replace(" " → "▁"), Split(" "), BPE with byte fallback, `<bos> $A <eos>` | gemma_tokenizer |
| ModernBERT: NFC, ByteLevel, BPE, runs of spaces as added tokens, `[CLS] $A [SEP]` | st_folders/modernbert_mean_prompts_new |

    python benchmarks/family_tokenizer_parity.py                 # all five, ~20 min on 2 cores
    python benchmarks/family_tokenizer_parity.py --only qwen_tokenizer --hostile-only
"""

import argparse
import json
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from common import REPO, machine_description  # noqa: E402

FIXTURES = os.path.join(REPO, "tests", "fixtures")
PIPELINES = {
    "xlm_roberta_transformers5": os.path.join(FIXTURES, "st_folders", "xlm_roberta_mean_normalize_transformers5"),
    "multilingual_e5": os.path.join(FIXTURES, "st_folders", "bert_unigram_e5_prompts_new"),
    "qwen_tokenizer": os.path.join(FIXTURES, "qwen_tokenizer"),
    "gemma_tokenizer": os.path.join(FIXTURES, "gemma_tokenizer"),
    "modernbert": os.path.join(FIXTURES, "st_folders", "modernbert_mean_prompts_new"),
}
BATCH = 20_000


def differing(folder, texts):
    """(texts whose in-graph ids differ, whose host ids differ, ids compared) against tokenizer.json."""
    import tensorflow as tf
    from tokenizers import Tokenizer

    from keras_sentemb.pretrained import load_tokenizer

    tokenizer = load_tokenizer(folder, max_length=1_000_000)
    reference = Tokenizer.from_file(os.path.join(folder, "tokenizer.json"))
    reference.no_truncation()
    reference.no_padding()
    start, end = list(tokenizer.start_ids), list(tokenizer.end_ids)
    in_graph = host = ids = 0
    for first in range(0, len(texts), BATCH):
        batch = texts[first : first + BATCH]
        expected = [encoding.ids for encoding in reference.encode_batch(batch)]
        ours = tokenizer.add_special_tokens(tokenizer.content_ids(tf.constant(batch))).to_list()
        in_graph += sum(a != b for a, b in zip(ours, expected))
        rows = [start + row.tolist() + end for row in tokenizer.content_id_rows(batch)]
        host += sum(a != b for a, b in zip(rows, expected))
        ids += sum(len(row) for row in expected)
    return in_graph, host, ids


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--only", nargs="+", choices=sorted(PIPELINES), help="these pipelines only")
    parser.add_argument("--hostile-only", action="store_true", help="skip the code-point sweep")
    args = parser.parse_args()
    from keras_sentemb.tokenizers.bert_character_table_builder import code_points

    print(machine_description())
    with open(os.path.join(FIXTURES, "hostile_texts", "texts.json"), encoding="utf-8") as f:
        hostile = json.load(f)
    sweep = [] if args.hostile_only else [t for p in code_points() for t in (f"a{chr(p)}b", f"A{chr(p)}", chr(p) * 2)]
    print("\n| pipeline | texts | in-graph ids differ | host ids differ | ids compared | seconds |")
    print("|---|---|---:|---:|---:|---:|")
    for name in args.only or PIPELINES:
        for label, texts in (("hostile", hostile), ("code points", sweep)):
            if not texts:
                continue
            began = time.perf_counter()
            in_graph, host, ids = differing(PIPELINES[name], texts)
            print(
                f"| {name} | {label} ({len(texts):,}) | {in_graph:,} | {host:,} | {ids:,} | "
                f"{time.perf_counter() - began:.0f} |",
                flush=True,
            )


if __name__ == "__main__":
    main()
