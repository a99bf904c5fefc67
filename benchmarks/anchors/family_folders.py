"""Tiny random sentence-transformers folders of the 2025 embedder families, made with transformers' own
model classes and configs, for the parity tests (outputs committed under tests/fixtures/st_folders/).

Runs in the anchor venv (PyTorch, transformers 5, sentence-transformers):

    .anchor-venv/bin/python benchmarks/anchors/family_folders.py
    .anchor-venv/bin/python benchmarks/anchors/st_folder_reference.py tiny --only qwen3_lasttoken_prompts_new \
        modernbert_mean_prompts_new gemma3_mean_dense_prompts_new

Every parameter is random, norms included (N(1, 0.1) scales): a loader that skipped one would show.
- `qwen3_lasttoken_prompts_new`: Qwen3-Embedding's shape — `Qwen3Model` with grouped-query attention
  (4 query heads, 2 key/value heads) and a head size of its own (16 × 4 ≠ hidden 32), the Qwen
  tokenizer of tests/fixtures/qwen_tokenizer (`<|endoftext|>` appended, left padding), Pooling
  `lasttoken`, Normalize, an instruction prompt for queries.
- `modernbert_mean_prompts_new`: modernbert-embed's shape — `ModernBertModel` with global attention every
  third layer and local attention of 8 positions (±4, shorter than most test sentences), rotary bases
  160,000 / 10,000, GeGLU, no biases; a byte-level BPE trained here the way GPT-NeoX's / ModernBERT's
  tokenizer.json is built (NFC, ByteLevel, `[CLS] $A [SEP]`, `[MASK]` taking the space on its left,
  runs of spaces as added tokens), Pooling mean, Normalize, "search_query: " / "search_document: " prompts.
- `gemma3_mean_dense_prompts_new`: EmbeddingGemma's shape — `Gemma3TextModel` with bidirectional attention,
  a sliding window of 8 (|i − j| < 5 as Hugging Face reads it) on three layers and global attention on
  one, grouped-query attention, `query_pre_attn_scalar` other than the head size; the Gemma-shaped BPE of
  tests/fixtures/gemma_tokenizer (byte fallback, `<bos> … <eos>`); Pooling mean, two Dense layers without
  bias (32 → 64 → 32), Normalize, EmbeddingGemma's prompts.
"""

import json
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


def sentence_transformer_folder(
    model, tokenizer_folder, pooling, target, prompts=None, max_seq_length=48, dense=(), seed=0
):
    """`model` (a transformers model) saved with the tokenizer files of `tokenizer_folder`, wrapped as
    Transformer → Pooling(`pooling`) → Dense(widths in `dense`, no bias, identity)* → Normalize and saved
    by sentence-transformers at `target`."""
    from sentence_transformers import SentenceTransformer, models

    with tempfile.TemporaryDirectory() as hf_folder:
        model.save_pretrained(hf_folder)
        for name in os.listdir(tokenizer_folder):
            shutil.copy(os.path.join(tokenizer_folder, name), hf_folder)
        transformer = models.Transformer(hf_folder, max_seq_length=max_seq_length)
        width = transformer.get_word_embedding_dimension()
        modules = [transformer, models.Pooling(width, pooling_mode=pooling)]
        for out_features in dense:
            layer = models.Dense(width, out_features, bias=False, activation_function=torch.nn.Identity())
            randomize(layer, seed + out_features)
            modules.append(layer)
            width = out_features
        encoder = SentenceTransformer(modules=[*modules, models.Normalize()], prompts=prompts, device="cpu")
        shutil.rmtree(target, ignore_errors=True)
        encoder.save(target)
        os.remove(os.path.join(target, "README.md"))  # a generated model card whose code blocks are not ours
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


def training_texts():
    with open(os.path.join(FIXTURES, "hostile_texts", "texts.json"), encoding="utf-8") as f:
        hostile = json.load(f)[::10]
    with open(os.path.join(FIXTURES, "minilm_reference", "sentences.json"), encoding="utf-8") as f:
        sentences = json.load(f)
    return sentences * 5 + hostile


def modernbert_tokenizer(folder):
    """tokenizer.json + tokenizer_config.json of ModernBERT's shape, trained on the fixture texts."""
    from tokenizers import AddedToken, Tokenizer, decoders, models, normalizers, pre_tokenizers, processors, trainers

    specials = ["[UNK]", "[CLS]", "[SEP]", "[PAD]", "[MASK]"]
    tokenizer = Tokenizer(models.BPE())
    tokenizer.normalizer = normalizers.NFC()
    tokenizer.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False, trim_offsets=True, use_regex=True)
    trainer = trainers.BpeTrainer(
        vocab_size=700, initial_alphabet=pre_tokenizers.ByteLevel.alphabet(), special_tokens=specials[:4]
    )
    tokenizer.train_from_iterator(training_texts(), trainer)
    # GPT-NeoX's runs of spaces (matched in the normalised text), then the mask token.
    tokenizer.add_tokens([AddedToken(" " * n, normalized=True) for n in (4, 3, 2)])
    tokenizer.add_special_tokens([AddedToken("[MASK]", lstrip=True, special=True)])
    tokenizer.post_processor = processors.TemplateProcessing(
        single="[CLS]:0 $A:0 [SEP]:0",
        pair="[CLS]:0 $A:0 [SEP]:0 $B:0 [SEP]:0",
        special_tokens=[(token, tokenizer.token_to_id(token)) for token in ("[CLS]", "[SEP]")],
    )
    tokenizer.decoder = decoders.ByteLevel()
    os.makedirs(folder, exist_ok=True)
    tokenizer.save(os.path.join(folder, "tokenizer.json"))
    config = {
        "tokenizer_class": "PreTrainedTokenizerFast",
        "clean_up_tokenization_spaces": True,
        "cls_token": "[CLS]",
        "sep_token": "[SEP]",
        "pad_token": "[PAD]",
        "mask_token": "[MASK]",
        "unk_token": "[UNK]",
        "model_max_length": 8192,
        "model_input_names": ["input_ids", "attention_mask"],
    }
    with open(os.path.join(folder, "tokenizer_config.json"), "w", encoding="utf-8") as f:
        json.dump(config, f, indent=2)
    return tokenizer


def modernbert():
    from transformers import ModernBertConfig, ModernBertModel

    with tempfile.TemporaryDirectory() as tokenizer_folder:
        tokenizer = modernbert_tokenizer(tokenizer_folder)
        config = ModernBertConfig(
            vocab_size=tokenizer.get_vocab_size(),
            hidden_size=32,
            intermediate_size=48,
            num_hidden_layers=4,
            num_attention_heads=4,
            max_position_embeddings=128,
            local_attention=8,
            global_attn_every_n_layers=3,
            global_rope_theta=160000.0,
            local_rope_theta=10000.0,
            pad_token_id=tokenizer.token_to_id("[PAD]"),
            cls_token_id=tokenizer.token_to_id("[CLS]"),
            sep_token_id=tokenizer.token_to_id("[SEP]"),
            bos_token_id=tokenizer.token_to_id("[CLS]"),
            eos_token_id=tokenizer.token_to_id("[SEP]"),
        )
        model = ModernBertModel(config)
        randomize(model, seed=31)
        sentence_transformer_folder(
            model,
            tokenizer_folder,
            "mean",
            os.path.join(FIXTURES, "st_folders", "modernbert_mean_prompts_new"),
            prompts={"query": "search_query: ", "document": "search_document: "},
        )


def gemma3():
    from transformers import Gemma3TextConfig, Gemma3TextModel

    config = Gemma3TextConfig(
        vocab_size=900,
        hidden_size=32,
        intermediate_size=48,
        num_hidden_layers=4,
        num_attention_heads=4,
        num_key_value_heads=2,
        head_dim=16,
        query_pre_attn_scalar=24,
        layer_types=["sliding_attention", "sliding_attention", "full_attention", "sliding_attention"],
        sliding_window=8,
        use_bidirectional_attention=True,
        max_position_embeddings=128,
        rope_theta=1_000_000.0,
        rope_local_base_freq=10_000.0,
        rms_norm_eps=1e-6,
        pad_token_id=0,
        bos_token_id=2,
        eos_token_id=1,
    )
    model = Gemma3TextModel(config)
    randomize(model, seed=32)
    sentence_transformer_folder(
        model,
        os.path.join(FIXTURES, "gemma_tokenizer"),
        "mean",
        os.path.join(FIXTURES, "st_folders", "gemma3_mean_dense_prompts_new"),
        prompts={"query": "task: search result | query: ", "document": "title: none | text: "},
        dense=(64, 32),
        seed=33,
    )


if __name__ == "__main__":
    qwen3()
    modernbert()
    gemma3()
