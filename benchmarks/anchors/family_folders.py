"""Tiny random sentence-transformers folders of the 2025 embedder families, made with transformers' own
model classes and configs, for the parity tests (outputs committed under tests/fixtures/st_folders/).

Runs in the anchor venv (PyTorch, transformers 5, sentence-transformers):

    .anchor-venv/bin/python benchmarks/anchors/family_folders.py
    .anchor-venv/bin/python benchmarks/anchors/family_folders.py real --tokenizers T --output F  # speed folders
    .anchor-venv/bin/python benchmarks/anchors/st_folder_reference.py tiny --only qwen3_lasttoken_prompts_new \
        modernbert_mean_prompts_new gemma3_mean_dense_prompts_new

Every parameter is random, norms included (N(1, 0.1) scales): a loader that skipped one would show.
- `qwen3_lasttoken_prompts_new`: Qwen3-Embedding's shape — `Qwen3Model` with grouped-query attention
  (4 query heads, 2 key/value heads) and a head size of its own (16 × 4 ≠ hidden 32), the Qwen
  tokenizer of tests/fixtures/qwen_tokenizer (`<|endoftext|>` appended, left padding), Pooling
  `lasttoken`, Normalize, an instruction prompt for queries.
- `qwen2_lasttoken_prompts_new`: gte-Qwen2's shape — `Qwen2Model` with grouped-query attention (4 query heads,
  2 key/value heads, the head size hidden / heads), biased query/key/value projections and no norm on the
  heads; the same Qwen tokenizer, Pooling `lasttoken`, Normalize, an instruction prompt for queries.
- `t5_relu_mean_dense_new` / `t5_gatedgelu_mean_dense_new`: sentence-t5's / GTR's shape — `T5EncoderModel` with
  relative position buckets (32, distance 128), T5's RMS-style norm, a ReLU / gated-GELU feed-forward, heads of
  12 × 4 ≠ d_model 32, a SentencePiece Unigram converted by transformers' `T5Converter` (`$A </s>`); Pooling
  mean, Dense 32 → 32 without bias, Normalize.
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

import argparse
import gc
import os
import shutil
import sys
import tempfile

import torch

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
FIXTURES = os.path.join(ROOT, "tests", "fixtures")
sys.path.insert(0, os.path.join(FIXTURES, "st_folders"))
from make_folders import write_modernbert_tokenizer  # noqa: E402  (the fixture maker, importable without TF)

QWEN_QUERY_PROMPT = "Instruct: Given a web search query, retrieve relevant passages that answer the query\nQuery:"


def randomize(model, seed):
    """Every parameter drawn anew: weights N(0, 0.2), norm scales N(1, 0.1)."""
    generator = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        for name, parameter in model.named_parameters():
            noise = torch.randn(parameter.shape, generator=generator)
            parameter.copy_(1 + 0.1 * noise if "norm" in name else 0.2 * noise)


def scale_preserving(model, seed):
    """Every parameter drawn anew so that each projection keeps its input's scale: matrices N(0, 1/fan-in)
    (embedding tables N(0, 1)), norm scales 1, biases 0. transformers' own initialisation (N(0, 0.02)) leaves
    a deep model's output near one vector for every text (gte-modernbert-base's shape: pairwise cosine
    0.998 over STS-B sentences), which would make any precision look exact; this one does not."""
    generator = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        for name, parameter in model.named_parameters():
            if parameter.dim() < 2:
                parameter.fill_(1.0 if "norm" in name else 0.0)
            else:
                fan_in = parameter.shape[1] if "embed" not in name else 1
                parameter.copy_(torch.randn(parameter.shape, generator=generator) / fan_in**0.5)


def sentence_transformer_folder(
    model, tokenizer_folder, pooling, target, prompts=None, max_seq_length=48, dense=(), seed=0, init=randomize
):
    """`model` (a transformers model) saved with the tokenizer files of `tokenizer_folder`, wrapped as
    Transformer → Pooling(`pooling`) → Dense(widths in `dense`, no bias, identity, drawn by `init`)* →
    Normalize and saved by sentence-transformers at `target`."""
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
            init(layer, seed + out_features)
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


def qwen2():
    from transformers import Qwen2Config, Qwen2Model

    config = Qwen2Config(
        vocab_size=700,
        hidden_size=32,
        intermediate_size=48,
        num_hidden_layers=2,
        num_attention_heads=4,
        num_key_value_heads=2,
        max_position_embeddings=128,
        rope_theta=1_000_000.0,
        rms_norm_eps=1e-6,
        use_sliding_window=False,
        tie_word_embeddings=False,
        pad_token_id=0,
    )
    model = Qwen2Model(config)
    randomize(model, seed=34)
    sentence_transformer_folder(
        model,
        os.path.join(FIXTURES, "qwen_tokenizer"),
        "lasttoken",
        os.path.join(FIXTURES, "st_folders", "qwen2_lasttoken_prompts_new"),
        prompts={"query": QWEN_QUERY_PROMPT, "document": ""},
    )


def t5_tokenizer(folder, texts=None, vocab_size=600, extra_ids=10):
    """`folder`/: a T5-shaped tokenizer.json — a `vocab_size`-piece SentencePiece Unigram trained on `texts` (the
    fixture texts by default) with T5's ids (<pad> 0, </s> 1, <unk> 2, no <s>), `extra_ids` sentinel tokens,
    converted by transformers' own `T5Converter` (Precompiled + Strip + Replace, Metaspace, `$A </s>`) — and
    T5's tokenizer_config.json."""
    import io
    import json

    import sentencepiece
    from make_folders import training_texts
    from transformers.convert_slow_tokenizer import T5Converter

    model = io.BytesIO()
    sentencepiece.SentencePieceTrainer.train(
        sentence_iterator=iter(texts if texts is not None else training_texts()),
        model_writer=model,
        vocab_size=vocab_size,
        model_type="unigram",
        normalization_rule_name="nmt_nfkc",
        character_coverage=0.995,
        pad_id=0,
        eos_id=1,
        unk_id=2,
        bos_id=-1,
        minloglevel=2,
    )
    with tempfile.TemporaryDirectory() as work:
        spm = os.path.join(work, "spm.model")
        with open(spm, "wb") as f:
            f.write(model.getvalue())

        class SlowTokenizer:
            """What the converter reads of a slow T5Tokenizer."""

            vocab_file = spm
            add_prefix_space = True
            legacy = True
            _extra_ids = extra_ids

            def convert_tokens_to_ids(self, token):
                return {"<pad>": 0, "</s>": 1, "<unk>": 2}[token]

        tokenizer = T5Converter(SlowTokenizer()).converted()
    tokenizer.save(os.path.join(folder, "tokenizer.json"))
    with open(os.path.join(folder, "tokenizer_config.json"), "w", encoding="utf-8") as f:
        json.dump(
            {"tokenizer_class": "T5Tokenizer", "eos_token": "</s>", "pad_token": "<pad>", "unk_token": "<unk>"}, f
        )
    return tokenizer


def t5(feed_forward_proj, target, seed):
    from transformers import T5Config, T5EncoderModel

    with tempfile.TemporaryDirectory() as tokenizer_folder:
        tokenizer = t5_tokenizer(tokenizer_folder)
        config = T5Config(
            vocab_size=tokenizer.get_vocab_size(),
            d_model=32,
            d_kv=12,  # 4 heads × 12 = 48 ≠ d_model, as T5 allows
            d_ff=48,
            num_layers=2,
            num_heads=4,
            relative_attention_num_buckets=32,
            relative_attention_max_distance=128,
            feed_forward_proj=feed_forward_proj,
            layer_norm_epsilon=1e-6,
            pad_token_id=0,
            eos_token_id=1,
            decoder_start_token_id=0,
        )
        model = T5EncoderModel(config)
        randomize(model, seed=seed)
        sentence_transformer_folder(
            model,
            tokenizer_folder,
            "mean",
            os.path.join(FIXTURES, "st_folders", target),
            dense=(32,),
            seed=seed + 1,
        )


def modernbert():
    from transformers import ModernBertConfig, ModernBertModel

    with tempfile.TemporaryDirectory() as tokenizer_folder:
        tokenizer = write_modernbert_tokenizer(tokenizer_folder)
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


# The released models' configs (config.json and the sentence-transformers modules of google/embeddinggemma-300m,
# Qwen/Qwen3-Embedding-0.6B and Alibaba-NLP/gte-modernbert-base), for `real`.
REAL_SIZE = {
    "embeddinggemma-300m": {
        "tokenizer": "gemma3",
        "config": dict(
            vocab_size=262144,
            hidden_size=768,
            intermediate_size=1152,
            num_hidden_layers=24,
            num_attention_heads=3,
            num_key_value_heads=1,
            head_dim=256,
            query_pre_attn_scalar=256,
            layer_types=(["sliding_attention"] * 5 + ["full_attention"]) * 4,
            sliding_window=512,
            use_bidirectional_attention=True,
            max_position_embeddings=2048,
            rope_theta=1_000_000.0,
            rope_local_base_freq=10_000.0,
            rms_norm_eps=1e-6,
            hidden_activation="gelu_pytorch_tanh",
        ),
        "pooling": "mean",
        "dense": (3072, 768),
        "max_seq_length": 2048,
        "prompts": {"query": "task: search result | query: ", "document": "title: none | text: "},
    },
    "qwen3-embedding-0.6b": {
        "tokenizer": "qwen3",
        "config": dict(
            vocab_size=151669,
            hidden_size=1024,
            intermediate_size=3072,
            num_hidden_layers=28,
            num_attention_heads=16,
            num_key_value_heads=8,
            head_dim=128,
            max_position_embeddings=32768,
            rope_theta=1_000_000.0,
            rms_norm_eps=1e-6,
            tie_word_embeddings=True,
        ),
        "pooling": "lasttoken",
        "dense": (),
        "max_seq_length": 32768,
        "prompts": {"query": QWEN_QUERY_PROMPT, "document": ""},
    },
    # Alibaba-NLP/gte-Qwen2-1.5B-instruct: Qwen2's tokenizer is Qwen3's shape (byte-level BPE, Qwen's split).
    "gte-qwen2-1.5b-instruct": {
        "tokenizer": "qwen3",
        "config": dict(
            vocab_size=151646,
            hidden_size=1536,
            intermediate_size=8960,
            num_hidden_layers=28,
            num_attention_heads=12,
            num_key_value_heads=2,
            max_position_embeddings=131072,
            rope_theta=1_000_000.0,
            rms_norm_eps=1e-6,
            tie_word_embeddings=False,
        ),
        "pooling": "lasttoken",
        "dense": (),
        "max_seq_length": 8192,
        "prompts": {
            "query": "Instruct: Given a web search query, retrieve relevant passages that answer the query\nQuery: "
        },
    },
    # sentence-transformers/sentence-t5-base: T5 v1.0's encoder (relu), mean pooling, Dense 768 → 768 without bias.
    "sentence-t5-base": {
        "tokenizer": "t5",
        "config": dict(
            vocab_size=32128,
            d_model=768,
            d_kv=64,
            d_ff=3072,
            num_layers=12,
            num_heads=12,
            relative_attention_num_buckets=32,
            relative_attention_max_distance=128,
            feed_forward_proj="relu",
            layer_norm_epsilon=1e-6,
            decoder_start_token_id=0,
        ),
        "pooling": "mean",
        "dense": (768,),
        "max_seq_length": 256,
        "prompts": None,
    },
    "gte-modernbert-base": {
        "tokenizer": "modernbert",
        "config": dict(
            vocab_size=50368,
            hidden_size=768,
            intermediate_size=1152,
            num_hidden_layers=22,
            num_attention_heads=12,
            max_position_embeddings=8192,
            local_attention=128,
            global_attn_every_n_layers=3,
            global_rope_theta=160000.0,
            local_rope_theta=10000.0,
            norm_eps=1e-5,
        ),
        "pooling": "cls",
        "dense": (),
        "max_seq_length": 8192,
        "prompts": None,
    },
}


def real_size(name, tokenizer_folder, target):
    """A folder of `name`'s real architecture and sizes, with random weights (`scale_preserving`; speed does
    not depend on the values), the tokenizer of `tokenizer_folder` (its special tokens' ids written into
    the config) and the released model's sentence-transformers modules."""
    import transformers
    from tokenizers import Tokenizer

    spec = REAL_SIZE[name]
    tokenizer = Tokenizer.from_file(os.path.join(tokenizer_folder, "tokenizer.json"))
    special = {
        "gemma3": {"pad_token_id": "<pad>", "bos_token_id": "<bos>", "eos_token_id": "<eos>"},
        "qwen3": {"pad_token_id": "<|endoftext|>", "eos_token_id": "<|endoftext|>"},
        "t5": {"pad_token_id": "<pad>", "eos_token_id": "</s>"},
        "modernbert": {
            "pad_token_id": "[PAD]",
            "cls_token_id": "[CLS]",
            "sep_token_id": "[SEP]",
            "bos_token_id": "[CLS]",
            "eos_token_id": "[SEP]",
        },
    }[spec["tokenizer"]]
    config_class, model_class = {
        "gemma3": (transformers.Gemma3TextConfig, transformers.Gemma3TextModel),
        "qwen3": (transformers.Qwen3Config, transformers.Qwen3Model),
        "modernbert": (transformers.ModernBertConfig, transformers.ModernBertModel),
        "t5": (transformers.T5Config, transformers.T5EncoderModel),
    }[spec["tokenizer"]]
    if name.startswith("gte-qwen2"):
        config_class, model_class = transformers.Qwen2Config, transformers.Qwen2Model
    ids = {key: tokenizer.token_to_id(token) for key, token in special.items()}
    torch.manual_seed(0)
    model = model_class(config_class(**spec["config"], **ids)).eval()
    scale_preserving(model, seed=40)
    sentence_transformer_folder(
        model,
        tokenizer_folder,
        spec["pooling"],
        target,
        prompts=spec["prompts"],
        max_seq_length=spec["max_seq_length"],
        dense=spec["dense"],
        init=scale_preserving,
    )


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("task", nargs="?", default="tiny", choices=["tiny", "real"])
    parser.add_argument("--tokenizers", help="real: the folder of make_folders.py real-size-tokenizers")
    parser.add_argument("--output", help="real: where the folders go, one per model")
    parser.add_argument("--only", nargs="*", default=sorted(REAL_SIZE), help="real: these models")
    parser.add_argument("--texts", help="real: the tokenizer training texts, one a line (T5's SentencePiece model)")
    args = parser.parse_args()
    if args.task == "tiny":
        qwen3()
        qwen2()
        t5("relu", "t5_relu_mean_dense_new", seed=35)  # sentence-t5's shape
        t5("gated-gelu", "t5_gatedgelu_mean_dense_new", seed=37)  # GTR's (T5 v1.1)
        modernbert()
        gemma3()
        return
    t5_folder = os.path.join(args.tokenizers, "t5")
    if any(REAL_SIZE[name]["tokenizer"] == "t5" for name in args.only) and not os.path.exists(
        os.path.join(t5_folder, "tokenizer.json")
    ):
        with open(args.texts, encoding="utf-8") as f:
            texts = [line.rstrip("\n") for line in f if line.strip()]
        os.makedirs(t5_folder, exist_ok=True)
        t5_tokenizer(t5_folder, texts, vocab_size=32000, extra_ids=100)  # T5's 32,000 pieces and 100 sentinels
    for name in args.only:
        real_size(name, os.path.join(args.tokenizers, REAL_SIZE[name]["tokenizer"]), os.path.join(args.output, name))
        gc.collect()


if __name__ == "__main__":
    main()
