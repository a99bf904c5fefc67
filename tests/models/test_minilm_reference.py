"""The real all-MiniLM-L6-v2 weights give sentence-transformers' vectors.

The reference vectors in tests/fixtures/minilm_reference/ were produced once by
sentence-transformers (see make_reference.py and provenance.json there).
"""

import json
import os

import numpy as np

from tests.conftest import FIXTURES

REFERENCE = os.path.join(FIXTURES, "minilm_reference")


def test_matches_sentence_transformers_within_1e_5(minilm_encoder):
    with open(os.path.join(REFERENCE, "sentences.json"), encoding="utf-8") as f:
        sentences = json.load(f)
    reference = np.load(os.path.join(REFERENCE, "embeddings.npy"))
    assert len(sentences) >= 100 and reference.shape == (len(sentences), 384)
    ours = minilm_encoder.encode(sentences, batch_size=32)
    worst = np.abs(ours - reference).max(axis=1)
    assert worst.max() < 1e-5, [(sentences[i][:50], float(worst[i])) for i in np.argsort(-worst)[:3]]


def test_hostile_texts_match_sentence_transformers_within_1e_5(minilm_encoder):
    """Every 40th text of the hostile-text corpus: Unicode spaces and separators, controls, every script."""
    with open(os.path.join(REFERENCE, "hostile_sentences.json"), encoding="utf-8") as f:
        sentences = json.load(f)
    reference = np.load(os.path.join(REFERENCE, "hostile_embeddings.npy"))
    assert len(sentences) == 300 and reference.shape == (300, 384)
    ours = minilm_encoder.encode(sentences, batch_size=32)
    worst = np.abs(ours - reference).max(axis=1)
    assert worst.max() < 1e-5, [(sentences[i][:50], float(worst[i])) for i in np.argsort(-worst)[:3]]


def test_follows_the_sentence_transformers_configuration(minilm_encoder):
    assert minilm_encoder.pooling == "mean"
    assert minilm_encoder.normalize is True
    assert minilm_encoder.tokenizer.max_length == 256
    assert minilm_encoder.embedding_dim == 384


def test_related_sentences_are_closer_than_unrelated_ones(minilm_encoder):
    a, b, c = minilm_encoder.encode(
        ["A man is playing a guitar.", "Someone plays an instrument.", "The stock market fell."]
    )
    assert a @ b > a @ c + 0.2
