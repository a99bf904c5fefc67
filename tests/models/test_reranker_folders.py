"""A sentence-transformers reranker folder loads as a `CrossEncoder` that scores every pair as
sentence-transformers' `CrossEncoder.predict` scores it (BERT, XLM-R and ModernBERT sequence-classification
heads, one or three labels, and a Qwen3 causal LM scoring with its "yes"/"no" logits through a chat template),
pairs longer than `max_length` included; it reranks. (Its SavedModel, Keras saving and fine-tuning:
test_reranker_folder_exports.py, in `make test-slow`.)

The folders and references: benchmarks/anchors/reranker_folder_reference.py (sentence-transformers 6.2.0 in
the anchor venv)."""

import json
import os

import numpy as np
import pytest
import tensorflow as tf

from keras_sentemb.models import CrossEncoder
from keras_sentemb.tokenizers.sequence_packing import longest_first_lengths

FIXTURES = os.path.join(os.path.dirname(os.path.dirname(__file__)), "fixtures")
FOLDERS = os.path.join(FIXTURES, "reranker_folders")
REFERENCE = os.path.join(FIXTURES, "reranker_folders_reference")
# folder: (activation, pooling, labels)
EXPECTED = {
    "bert_reranker": ("sigmoid", "pooler", 1),
    "bert_three_labels": ("linear", "pooler", 3),
    "xlm_roberta_reranker": ("sigmoid", "cls", 1),
    "modernbert_reranker_mean": ("sigmoid", "mean", 1),
    "modernbert_reranker_cls": ("sigmoid", "first", 1),
    "qwen3_reranker": ("sigmoid", "last", 1),
}
TOLERANCE = 1e-4  # the bar; measured: at most 6.4e-6 (Qwen3), 3.6e-7 for the encoders


def pairs():
    with open(os.path.join(REFERENCE, "pairs.json"), encoding="utf-8") as f:
        rows = json.load(f)
    return [query for query, _ in rows], [document for _, document in rows]


@pytest.fixture(scope="module", params=sorted(EXPECTED))
def loaded(request):
    return request.param, CrossEncoder.from_pretrained(os.path.join(FOLDERS, request.param))


def test_the_folder_brings_its_head_activation_and_labels(loaded):
    name, model = loaded
    activation, pooling, labels = EXPECTED[name]
    assert (model.score_activation, model.pooling, model.num_labels) == (activation, pooling, labels)


def test_scores_equal_sentence_transformers_predict(loaded):
    name, model = loaded
    queries, documents = pairs()
    reference = np.load(os.path.join(REFERENCE, f"{name}.npz"))["scores"]
    scores = model.predict_pairs(queries, documents, batch_size=8, progress=False)
    assert scores.shape == reference.shape
    np.testing.assert_allclose(scores, reference, atol=TOLERANCE, rtol=0)


def test_pairs_longer_than_max_length_are_among_those_compared(loaded):
    _, model = loaded
    queries, documents = pairs()
    ids, _ = model.pair_rows(queries, documents)
    assert max(len(row) for row in ids) == model.tokenizer.max_length
    assert sum(len(row) == model.tokenizer.max_length for row in ids) >= 10


def test_rerank_orders_documents_as_the_reference_scores_do(loaded):
    name, model = loaded
    if model.num_labels != 1:
        pytest.skip("a model of three labels is no reranker")
    queries, documents = pairs()
    reference = np.load(os.path.join(REFERENCE, f"{name}.npz"))["scores"]
    same_query = [i for i, query in enumerate(queries) if query == queries[0]]
    ranked = model.rerank(queries[0], [documents[i] for i in same_query], top_k=3)
    expected = sorted(range(len(same_query)), key=lambda k: -reference[same_query[k]])[:3]
    assert [hit["corpus_id"] for hit in ranked] == expected


def test_longest_first_truncation_is_hugging_face_tokenizers_own():
    """Every (len a, len b) up to 24 under budgets 3 … 16 against `tokenizers`' LongestFirst."""
    from tokenizers import Tokenizer, models, pre_tokenizers, processors

    reference = Tokenizer(models.WordLevel({"a": 0, "[CLS]": 1, "[SEP]": 2, "[UNK]": 3}, unk_token="[UNK]"))
    reference.pre_tokenizer = pre_tokenizers.WhitespaceSplit()
    reference.post_processor = processors.TemplateProcessing(
        single="[CLS] $A [SEP]", pair="[CLS] $A [SEP] $B:1 [SEP]:1", special_tokens=[("[CLS]", 1), ("[SEP]", 2)]
    )
    grid = [(a, b) for a in range(25) for b in range(25)]
    lengths_a = tf.constant([a for a, _ in grid])
    lengths_b = tf.constant([b for _, b in grid])
    for max_length in range(6, 20):
        reference.enable_truncation(max_length)
        keep_a, keep_b = longest_first_lengths(lengths_a, lengths_b, max_length - 3)
        for (a, b), ours_a, ours_b in zip(grid, keep_a.numpy(), keep_b.numpy()):
            types = reference.encode(" ".join(["a"] * a), " ".join(["a"] * b)).type_ids
            assert (ours_a, ours_b) == (types.count(0) - 2, types.count(1) - 1), (max_length, a, b)
