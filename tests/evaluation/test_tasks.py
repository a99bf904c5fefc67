"""Evaluation tasks measure what their reference computation measures, encode each
sentence once, and turn undefined results into NaN with an explanation."""

import os

import numpy as np
import pytest
from scipy.stats import pearsonr, spearmanr

from keras_sentemb.data.examples import LabeledPairs, LabeledSentences, ScoredPairs
from keras_sentemb.evaluation.embedding_memo import EmbeddingMemo
from keras_sentemb.evaluation.neighbour_recall import neighbour_recall
from keras_sentemb.evaluation.pair_classification import threshold_accuracy_and_f1
from keras_sentemb.evaluation.probes import cross_validated_probe
from keras_sentemb.evaluation.retrieval_metrics import recall_at_k
from keras_sentemb.evaluation.tasks import (
    HashRecallTask,
    NLIProbeTask,
    PairClassificationTask,
    ProbeTask,
    STSTask,
    code_bit_prefixes,
    nli_pair_features,
)
from keras_sentemb.retrieval.binary_codes import hamming_distances
from tests.conftest import FIXTURES
from tests.evaluation.fake_encoders import CharacterTrigramEncoder, ConstantEncoder, SignHashedEncoder

TASKS = os.path.join(FIXTURES, "eval_tasks")
PAIRS = ScoredPairs(
    ["a man plays a guitar", "a woman slices an onion", "the cat sat", "rain in the city", "a dog runs"],
    ["a man is playing guitar", "someone cuts an onion", "stock markets fell", "a storm in town", "a dog is running"],
    [5.0, 4.0, 0.2, 2.5, 4.6],
)
WORDS = ["bread", "oven", "guitar", "onion", "storm", "river", "mountain", "coffee", "train", "music"]


def sentences(count, seed=0):
    rng = np.random.default_rng(seed)
    return [" ".join(rng.choice(WORDS, size=4)) + f" {i}" for i in range(count)]


def test_sts_task_equals_scipy_on_cosine_similarity():
    encoder = CharacterTrigramEncoder()
    result = STSTask("toy", PAIRS).run(EmbeddingMemo(encoder))
    u, v = encoder.encode(PAIRS.sentences1), encoder.encode(PAIRS.sentences2)
    cosine = np.sum(u * v, axis=1)
    assert result.metrics["spearman"] == pytest.approx(spearmanr(cosine, PAIRS.scores).statistic * 100)
    assert result.metrics["pearson"] == pytest.approx(pearsonr(cosine, PAIRS.scores).statistic * 100)
    assert result.main_metric == "spearman" and result.size == 5 and result.warnings == []


def test_sts_on_a_hashed_model_adds_hamming_correlations():
    encoder = SignHashedEncoder()
    result = STSTask("toy", PAIRS).run(EmbeddingMemo(encoder))
    u = encoder.hash_embeddings(encoder.encode(PAIRS.sentences1), packed=False)
    v = encoder.hash_embeddings(encoder.encode(PAIRS.sentences2), packed=False)
    hamming = -(u != v).sum(axis=1)
    assert result.metrics["hamming_spearman"] == pytest.approx(spearmanr(hamming, PAIRS.scores).statistic * 100)


def test_constant_predictions_give_nan_with_a_warning_and_null_in_json():
    result = STSTask("flat", PAIRS).run(EmbeddingMemo(ConstantEncoder()))
    assert np.isnan(result.metrics["spearman"]) and np.isnan(result.metrics["pearson"])
    assert any("predicted scores are constant" in w for w in result.warnings)
    assert result.as_json()["metrics"] == {"spearman": None, "pearson": None}


def test_each_distinct_sentence_is_encoded_once_across_tasks():
    encoder = CharacterTrigramEncoder()
    memo = EmbeddingMemo(encoder)
    STSTask("one", PAIRS).run(memo)
    STSTask("two", PAIRS).run(memo)
    assert sorted(encoder.encoded) == sorted(set(PAIRS.sentences1 + PAIRS.sentences2))
    np.testing.assert_allclose(memo.embed(["the cat sat"]), encoder.encode(["the cat sat"]))


def test_cross_validated_probe_task_equals_the_probe_on_the_embeddings():
    texts = sentences(40)
    labels = ["music" if ("guitar" in t or "music" in t) else "other" for t in texts]
    data = LabeledSentences(texts, labels)
    encoder = CharacterTrigramEncoder()
    result = ProbeTask("toy", data, folds=4, seed=1).run(EmbeddingMemo(encoder))
    expected = cross_validated_probe(encoder.encode(texts), np.array(labels), folds=4, seed=1)
    assert result.metrics == {"accuracy": expected.accuracy, "accuracy_std": expected.accuracy_std}
    assert result.details["c"] == expected.c and result.size == 40


def test_a_probe_task_with_an_unseen_test_label_says_so():
    train = LabeledSentences(sentences(12), ["a", "b"] * 6)
    test = LabeledSentences(sentences(2, seed=1), ["a", "zebra"])
    with pytest.raises(ValueError, match=r"\['zebra'\] occur in the evaluation split"):
        ProbeTask("toy", train, test=test).run(EmbeddingMemo(CharacterTrigramEncoder()))


def test_pair_classification_task_uses_the_dev_threshold():
    texts = sentences(30, seed=2)
    dev = LabeledPairs(texts[:15], texts[:10] + texts[20:25], [1] * 10 + [0] * 5)
    test = LabeledPairs(texts[15:30], texts[15:20] + texts[:10], [1] * 5 + [0] * 10)
    encoder = CharacterTrigramEncoder()
    result = PairClassificationTask("toy", dev, test).run(EmbeddingMemo(encoder))

    def cosine(pairs):
        u, v = (encoder.encode(texts).astype(np.float64) for texts in (pairs.sentences1, pairs.sentences2))
        return np.sum(u * v, axis=1) / np.linalg.norm(u, axis=1) / np.linalg.norm(v, axis=1)

    accuracy, f1, threshold = threshold_accuracy_and_f1(cosine(dev), dev.labels, cosine(test), test.labels)
    assert result.metrics == {"accuracy": accuracy, "f1": f1}
    assert result.details["threshold"] == pytest.approx(threshold)


def test_nli_probe_features_are_u_v_absdiff_product():
    u, v = np.array([[1.0, -2.0]]), np.array([[3.0, 1.0]])
    np.testing.assert_allclose(nli_pair_features(u, v), [[1, -2, 3, 1, 2, 3, 3, -2]])
    texts = sentences(30, seed=3)
    pairs = LabeledPairs(texts[:15], texts[15:], [0, 1, 2] * 5)
    result = NLIProbeTask("toy", pairs, pairs).run(EmbeddingMemo(CharacterTrigramEncoder()))
    assert 0.0 <= result.metrics["accuracy"] <= 100.0 and result.size == 15


def test_hash_recall_matches_a_brute_force_hamming_search():
    corpus = sentences(120, seed=4)
    encoder = SignHashedEncoder()
    result = HashRecallTask("toy", corpus, queries=20, k=5, rerank=4).run(EmbeddingMemo(encoder))
    vectors = encoder.encode(corpus)
    codes = encoder.hash_embeddings(vectors)
    cosine = vectors[:20] @ vectors.T
    distances = hamming_distances(codes[:20], codes).astype(np.float64)
    for q in range(20):  # a query is not its own neighbour
        cosine[q, q], distances[q, q] = -np.inf, np.inf
    true = np.argsort(-cosine, axis=1, kind="stable")[:, :5]
    found = np.argsort(distances, axis=1, kind="stable")
    assert result.details["bits"] == [16, 32]
    assert result.metrics["recall@5"] == pytest.approx(neighbour_recall(found[:, :5], true))
    assert result.metrics["recall@5_in_top20"] == pytest.approx(
        recall_at_k(found[:, :20].tolist(), [set(t) for t in true.tolist()], k=20)
    )


def test_hash_recall_needs_a_hashed_model_and_enough_sentences():
    with pytest.raises(TypeError, match="needs a HashedEncoder"):
        HashRecallTask("toy", sentences(200)).run(EmbeddingMemo(CharacterTrigramEncoder()))
    with pytest.raises(ValueError, match="too few"):
        HashRecallTask("toy", sentences(50)).run(EmbeddingMemo(SignHashedEncoder()))


def test_code_bit_prefixes_double_up_to_the_code_length():
    assert code_bit_prefixes(256) == [16, 32, 64, 128, 256]
    assert code_bit_prefixes(48) == [16, 32, 48]
    assert code_bit_prefixes(16) == [16]
