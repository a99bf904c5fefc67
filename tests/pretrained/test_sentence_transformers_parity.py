"""Any sentence-transformers folder gives sentence-transformers' own vectors.

tests/fixtures/st_folders/ holds tiny random-weight folders of every supported architecture
(BERT, DistilBERT, MPNet, RoBERTa, XLM-RoBERTa; Qwen3, ModernBERT and Gemma 3 made with transformers' own models by
benchmarks/anchors/family_folders.py) and module combination (every Pooling mode and a concatenation of all
six, Dense with and without bias and residual, Normalize, prompts, truncate_dim), in both layouts
(older `pooling_mode_*` / `max_seq_length`; sentence-transformers 6.x `pooling_mode` /
`model_max_length`), and XLM-R saved under transformers 5 (its tokenizer.json rewritten to
WhitespaceSplit + Metaspace). tests/fixtures/st_folders_reference/ holds what sentence-transformers 6.2
computes on them (benchmarks/anchors/st_folder_reference.py, run in the anchor venv): `encode`,
`encode_query`, `encode_document`, `encode(prompt="")` of 418 texts (118 sentences, 300 hostile).
"""

import functools
import json
import os

import numpy as np
import pytest
from tokenizers import Tokenizer

from keras_sentemb import SentenceEncoder
from tests.conftest import FIXTURES

FOLDERS = os.path.join(FIXTURES, "st_folders")
REFERENCE = os.path.join(FIXTURES, "st_folders_reference")
NAMES = sorted(name for name in os.listdir(FOLDERS) if os.path.isdir(os.path.join(FOLDERS, name)))
with open(os.path.join(REFERENCE, "sentences.json"), encoding="utf-8") as f:
    SENTENCES = json.load(f)
with open(os.path.join(FIXTURES, "hostile_texts", "texts.json"), encoding="utf-8") as f:
    HOSTILE = json.load(f)


# The 2021 encoders agree to 1e-5; a decoder with random N(0, 0.2) weights (Qwen3: SwiGLU, q/k norms,
# rotary positions under left padding) to the 1e-4 (measured 1.2e-5: float32 order of operations).
TOLERANCE = {"qwen3": 1e-4, "qwen2": 1e-4}


@functools.cache
def encoder_of(name):
    """The folder's encoder, loaded once for every test of this file that reads it."""
    return SentenceEncoder.from_pretrained(os.path.join(FOLDERS, name))


@pytest.fixture(scope="module", params=NAMES)
def loaded(request):
    return request.param, encoder_of(request.param)


def test_every_layout_and_architecture_is_covered():
    assert {name.split("_")[0] for name in NAMES} == {
        "bert",
        "distilbert",
        "mpnet",
        "roberta",
        "xlm",
        "qwen3",
        "qwen2",
        "t5",
        "modernbert",
        "gemma3",
    }
    # older sentence-transformers, 6.x, and a folder sentence-transformers saved under transformers 5
    assert {name.rsplit("_", 1)[1] for name in NAMES} == {"old", "new", "transformers5"}


def test_vectors_equal_sentence_transformers_within_1e_5(loaded):
    name, encoder = loaded
    reference = np.load(os.path.join(REFERENCE, f"{name}.npz"))
    ours = {
        "default": encoder.encode(SENTENCES, normalize=False),
        "query": encoder.encode_query(SENTENCES, normalize=False),
        "document": encoder.encode_document(SENTENCES, normalize=False),
        "no_prompt": encoder.encode(SENTENCES, normalize=False, prompt=""),
    }
    for kind, vectors in ours.items():
        assert vectors.shape == reference[kind].shape, (name, kind)
        worst = np.abs(vectors - reference[kind]).max(axis=1)
        tolerance = TOLERANCE.get(name.split("_")[0], 1e-5)
        assert worst.max() < tolerance, (
            name,
            kind,
            [(SENTENCES[i][:40], float(worst[i])) for i in np.argsort(-worst)[:3]],
        )


def _first_folder_of_each_tokenizer():
    """One folder per distinct tokenizer.json (folders of one architecture share theirs)."""
    seen = {}
    for name in NAMES:
        with open(os.path.join(FOLDERS, name, "tokenizer.json"), "rb") as f:
            seen.setdefault(f.read(), name)
    return sorted(seen.values())


@pytest.mark.parametrize("name", _first_folder_of_each_tokenizer())
def test_ids_are_the_tokenizer_json_ids_on_every_hostile_text(name):
    encoder = encoder_of(name)
    reference = Tokenizer.from_file(os.path.join(FOLDERS, name, "tokenizer.json"))
    reference.no_truncation()
    reference.no_padding()
    start, end = len(encoder.tokenizer.start_ids), len(encoder.tokenizer.end_ids)
    expected = [encoding.ids[start : len(encoding.ids) - end] for encoding in reference.encode_batch(HOSTILE)]
    in_graph = encoder.tokenizer.tokenize(HOSTILE).to_list()
    differ = [i for i, (ours, theirs) in enumerate(zip(in_graph, expected)) if ours != theirs]
    assert not differ, (name, len(differ), [HOSTILE[i][:40] for i in differ[:3]])


# The SavedModel of each tokenizer kind (WordPiece with BERT's and MPNet's tokens, byte-level BPE, Unigram behind
# either pre-tokeniser, Unigram before a BERT) and a default prompt ("query: "): TF Serving's TensorFlow loads them
# in a process without keras_sentemb and answers as `encode` on these sentences (tests/export/test_tf_serving_release.py).
SERVED = [
    "mpnet_all_modes_new",
    "bert_weighted_last_prompts_new",
    "roberta_cls_dense_old",
    "xlm_roberta_cls_dense_old",
    "xlm_roberta_mean_normalize_transformers5",  # WhitespaceSplit + Metaspace
    "bert_unigram_e5_prompts_new",  # multilingual-e5's shape
    "qwen3_lasttoken_prompts_new",  # a decoder: Qwen3's tokenizer (end-of-text appended, left padding), last token
    "modernbert_mean_prompts_new",  # local and global attention, NFC before byte-level BPE
    "gemma3_mean_dense_prompts_new",  # bidirectional sliding windows, byte-fallback BPE, <bos> … <eos>, Dense
    "t5_relu_mean_dense_new",  # relative position buckets, a Unigram packed `ids </s>`, Dense
]


def test_embeddinggemmas_matryoshka_truncation_keeps_the_leading_features():
    """EmbeddingGemma is trained for 768/512/256/128 features: `truncate_dim` keeps the leading ones of
    sentence-transformers' (normalised) vectors, as its `truncate_dim` does."""
    name = "gemma3_mean_dense_prompts_new"
    encoder = SentenceEncoder.from_pretrained(os.path.join(FOLDERS, name), truncate_dim=16)
    reference = np.load(os.path.join(REFERENCE, f"{name}.npz"))
    ours = encoder.encode_query(SENTENCES[:50], normalize=False)
    np.testing.assert_allclose(ours, reference["query"][:50, :16], atol=1e-5)
