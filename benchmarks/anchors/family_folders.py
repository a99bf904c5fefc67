"""Tiny random sentence-transformers folders of the 2025 embedder families, made with transformers' own
model classes and configs, for the parity tests (outputs committed under tests/fixtures/st_folders/).

Runs in the anchor venv (PyTorch, transformers 5, sentence-transformers):

    .anchor-venv/bin/python benchmarks/anchors/family_folders.py
    .anchor-venv/bin/python benchmarks/anchors/st_folder_reference.py tiny --only qwen3_lasttoken_prompts_new

Every parameter is random, norms included (N(1, 0.1) scales): a loader that skipped one would show.
- `qwen3_lasttoken_prompts_new`: Qwen3-Embedding's shape — `Qwen3Model` with grouped-query attention
  (4 query heads, 2 key/value heads) and a head size of its own (16 × 4 ≠ hidden 32), the Qwen
  tokenizer of tests/fixtures/qwen_tokenizer (`<|endoftext|>` appended, left padding), Pooling
  `lasttoken`, Normalize, an instruction prompt for queries.
"""

import os
import shutil
import tempfile

import torch

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
FIXTURES = os.path.join(ROOT, "tests", "fixtures")
QWEN_QUERY_PROMPT = "Instruct: Given a web search query, retrieve relevant passages that answer the query\nQuery:"


def randomize(model, seed):
    """Every parameter drawn anew: weights N(0, 0.2), norm scales N(1, 0.1)."""
    generator = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        for name, parameter in model.named_parameters():
            noise = torch.randn(parameter.shape, generator=generator)
            parameter.copy_(1 + 0.1 * noise if "norm" in name else 0.2 * noise)


def sentence_transformer_folder(model, tokenizer_folder, pooling, target, prompts=None, max_seq_length=48):
    """`model` (a transformers model) saved with the tokenizer files of `tokenizer_folder`, wrapped as
    Transformer → Pooling(`pooling`) → Normalize and saved by sentence-transformers at `target`."""
    from sentence_transformers import SentenceTransformer, models

    with tempfile.TemporaryDirectory() as hf_folder:
        model.save_pretrained(hf_folder)
        for name in os.listdir(tokenizer_folder):
            shutil.copy(os.path.join(tokenizer_folder, name), hf_folder)
        transformer = models.Transformer(hf_folder, max_seq_length=max_seq_length)
        pool = models.Pooling(transformer.get_word_embedding_dimension(), pooling_mode=pooling)
        encoder = SentenceTransformer(modules=[transformer, pool, models.Normalize()], prompts=prompts, device="cpu")
        shutil.rmtree(target, ignore_errors=True)
        encoder.save(target)
    print("wrote", target)


def qwen3():
    from transformers import Qwen3Config, Qwen3Model

    config = Qwen3Config(
        vocab_size=700,
        hidden_size=32,
        intermediate_size=48,
        num_hidden_layers=2,
        num_attention_heads=4,
        num_key_value_heads=2,
        head_dim=16,
        max_position_embeddings=128,
        rope_theta=1_000_000.0,
        rms_norm_eps=1e-6,
        tie_word_embeddings=True,
        pad_token_id=0,
    )
    model = Qwen3Model(config)
    randomize(model, seed=30)
    sentence_transformer_folder(
        model,
        os.path.join(FIXTURES, "qwen_tokenizer"),
        "lasttoken",
        os.path.join(FIXTURES, "st_folders", "qwen3_lasttoken_prompts_new"),
        prompts={"query": QWEN_QUERY_PROMPT, "document": ""},
    )


if __name__ == "__main__":
    qwen3()
