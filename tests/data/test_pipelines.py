"""Training pipelines: tokenised in tf.data, length-bucketed, seeded, TFDS-compatible."""

import numpy as np
import pytest
import tensorflow as tf
import tensorflow_datasets as tfds

from keras_sentemb import SentenceTokenizer
from keras_sentemb.data.examples import LabeledPairs, LabeledSentences, ScoredPairs, TextPairs, Triplets
from keras_sentemb.data.pipelines import examples_dataset
from keras_sentemb.data.tfds_adapters import tfds_pair_dataset
from tests.conftest import TINY_VOCAB

TOKENIZER = SentenceTokenizer(TINY_VOCAB, max_length=32)
WORDS = ["cat", "dog", "rain", "storm", "bread", "oven", "mat"]


def sentence(n):
    return " ".join(WORDS[i % len(WORDS)] for i in range(n))


def scored_pairs(count=64, seed=0):
    rng = np.random.default_rng(seed)
    lengths = rng.integers(1, 28, size=(count, 2))
    return ScoredPairs(
        [sentence(a) for a, _ in lengths], [sentence(b) for _, b in lengths], list(rng.uniform(0, 5, size=count))
    )


def test_batches_hold_packed_ids_masks_and_labels():
    pairs = ScoredPairs(["cat dog", "rain"], ["storm", "the oven mat"], [1.0, 4.0])
    features, labels = next(iter(examples_dataset(pairs, TOKENIZER, batch_size=2, shuffle=False, bucketing=False)))
    np.testing.assert_array_equal(features["sentence1"]["token_ids"], [[2, 7, 8, 3], [2, 20, 3, 0]])
    np.testing.assert_array_equal(features["sentence1"]["padding_mask"], [[1, 1, 1, 1], [1, 1, 1, 0]])
    np.testing.assert_array_equal(features["sentence2"]["token_ids"][0], [2, 21, 3, 0, 0])
    np.testing.assert_allclose(labels, [1.0, 4.0])


def test_bucketing_pads_less_than_random_batches_and_keeps_every_example():
    pairs = scored_pairs(256)

    def padded_tokens_and_count(bucketing):
        padded, count = 0, 0
        for features, labels in examples_dataset(pairs, TOKENIZER, batch_size=16, bucketing=bucketing):
            for key in ("sentence1", "sentence2"):
                padded += int(tf.size(features[key]["token_ids"]))
            count += int(labels.shape[0])
        return padded, count

    bucketed, n_bucketed = padded_tokens_and_count(True)
    random_batches, n_random = padded_tokens_and_count(False)
    assert n_bucketed == n_random == 256
    assert bucketed < 0.8 * random_batches


@pytest.mark.parametrize("bucketing", [True, False])
def test_every_batch_holds_the_batch_size_asked_for_except_the_epochs_last(bucketing):
    """In-batch-negative losses get batch_size − 1 negatives a row: length grouping works inside
    windows of full batches, never by leaving partial batches per length bucket."""
    pairs = scored_pairs(200, seed=5)  # lengths 1…27: dozens of length buckets
    sizes = [
        int(labels.shape[0]) for _, labels in examples_dataset(pairs, TOKENIZER, batch_size=16, bucketing=bucketing)
    ]
    assert sizes == [16] * 12 + [8]
    kept = examples_dataset(pairs, TOKENIZER, batch_size=16, bucketing=bucketing, drop_remainder=True)
    assert [int(labels.shape[0]) for _, labels in kept] == [16] * 12


def test_length_grouped_batches_are_seeded_and_change_between_epochs():
    pairs = scored_pairs(256, seed=2)

    def epoch_labels(seed):
        dataset = examples_dataset(pairs, TOKENIZER, batch_size=8, seed=seed)
        return [np.concatenate([labels.numpy() for _, labels in dataset]) for _ in range(2)]

    first, second = epoch_labels(3)
    np.testing.assert_array_equal(epoch_labels(3)[0], first)
    assert not np.array_equal(first, second)
    np.testing.assert_allclose(np.sort(first), np.sort(pairs.scores), rtol=1e-6)


def test_shuffling_is_seeded_and_changes_between_epochs():
    pairs = scored_pairs(64)

    def first_labels(seed):
        dataset = examples_dataset(pairs, TOKENIZER, batch_size=64, seed=seed, bucketing=False)
        return [next(iter(dataset))[1].numpy() for _ in range(2)]

    again = first_labels(7)
    np.testing.assert_array_equal(first_labels(7)[0], again[0])
    assert not np.array_equal(again[0], again[1])


def test_pairs_without_scores_train_with_zero_labels():
    pairs = TextPairs(["cat", "rain"], ["dog sat", "storm"])
    features, labels = next(iter(examples_dataset(pairs, TOKENIZER, batch_size=2, shuffle=False)))
    assert set(features) == {"sentence1", "sentence2"}
    np.testing.assert_array_equal(labels, [0.0, 0.0])


def test_triplets_and_labelled_pairs_have_their_own_keys_and_label_types():
    triplets = Triplets(["cat"], ["dog"], ["rain"])
    features, labels = next(iter(examples_dataset(triplets, TOKENIZER, batch_size=4)))
    assert sorted(features) == ["anchor", "negative", "positive"] and labels.dtype == tf.float32
    pairs = LabeledPairs(["cat"], ["dog"], [2])
    _, labels = next(iter(examples_dataset(pairs, TOKENIZER, batch_size=4)))
    assert labels.dtype == tf.int32 and labels.numpy().tolist() == [2]


def test_rejects_other_inputs_and_empty_examples():
    with pytest.raises(TypeError, match="ScoredPairs"):
        examples_dataset([("a", "b")], TOKENIZER)
    with pytest.raises(ValueError, match="zero examples"):
        examples_dataset(ScoredPairs([], [], []), TOKENIZER)


@pytest.mark.parametrize(
    "name, label_dtype",
    [("glue/stsb", tf.float32), ("glue/mrpc", tf.int32), ("snli", tf.int32), ("multi_nli", tf.int32)],
)
def test_tfds_datasets_with_glue_and_snli_features(name, label_dtype):
    with tfds.testing.mock_data(num_examples=12):
        split = tfds.load(name, split="train")
    batches = list(tfds_pair_dataset(split, name, TOKENIZER, batch_size=4, shuffle=False))
    features, labels = batches[0]
    assert sorted(features) == ["sentence1", "sentence2"] and labels.dtype == label_dtype
    assert features["sentence1"]["token_ids"].shape[0] == labels.shape[0]
    assert sum(int(b[1].shape[0]) for b in batches) <= 12


def test_tfds_snli_drops_pairs_without_gold_label():
    raw = tf.data.Dataset.from_tensor_slices(
        {"premise": ["cat", "dog"], "hypothesis": ["rain", "mat"], "label": tf.constant([-1, 1], tf.int64)}
    )
    batches = list(tfds_pair_dataset(raw, "snli", TOKENIZER, batch_size=4, shuffle=False))
    assert [b[1].numpy().tolist() for b in batches] == [[1]]
    with pytest.raises(ValueError, match="unsupported TFDS dataset"):
        tfds_pair_dataset(raw, "imdb", TOKENIZER)


@pytest.mark.parametrize("bucketing", [True, False])
def test_the_dataset_knows_its_exact_number_of_batches(bucketing):
    dataset = examples_dataset(scored_pairs(200, seed=3), TOKENIZER, batch_size=16, bucketing=bucketing)
    assert len(dataset) == sum(1 for _ in dataset)


def test_sentence_targets_pair_word_ids_with_teacher_vectors():
    from keras_sentemb.data.pipelines import sentence_targets_dataset
    from keras_sentemb.tokenizers import WordTokenizer
    from tests.conftest import TINY_WORDS

    tokenizer = WordTokenizer(TINY_WORDS)
    targets = np.arange(12, dtype="float32").reshape(3, 4)
    data = sentence_targets_dataset(
        ["the cat sat", "", "dog"], targets, tokenizer, batch_size=2, shuffle=False, bucketing=False
    )
    batches = list(data)
    assert len(data) == 2 == len(batches)
    features, target = batches[0]
    assert features["token_ids"].numpy().tolist() == [[2, 4, 6], [1, 0, 0]]
    np.testing.assert_array_equal(target.numpy(), targets[:2])
    with pytest.raises(ValueError, match="2 targets for 3 sentences"):
        sentence_targets_dataset(["a", "b", "c"], targets[:2], tokenizer)


@pytest.mark.parametrize("bucketing", [True, False])
def test_word_tokenizer_pipelines_know_their_batch_count(bucketing):
    from keras_sentemb.tokenizers import WordTokenizer
    from tests.conftest import TINY_WORDS

    sentences = LabeledSentences([" ".join(["the"] * n) for n in range(0, 30)], [0] * 30)
    data = examples_dataset(sentences, WordTokenizer(TINY_WORDS), batch_size=4, bucketing=bucketing)
    assert len(data) == sum(1 for _ in data)
