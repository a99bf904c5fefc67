"""Silver pairs: a pool of training sentences only, mined pairs without repeats or gold pairs,
neighbour pairs that are nearest neighbours, and teacher labels that resume after a kill."""

import argparse
import os

import numpy as np
import pytest

from keras_sentemb.data.examples import ScoredPairs
from keras_sentemb.training.silver_pairs import (
    HELD_OUT_FILES,
    add_silver_arguments,
    label_silver_pairs,
    mine_silver_pairs,
    silver_sentence_pool,
    silver_training_pairs,
)
from tests.conftest import FIXTURES, make_tiny_cross_encoder


@pytest.fixture()
def data_dir(tmp_path):
    (tmp_path / "stsb").mkdir()
    (tmp_path / "trec").mkdir()
    (tmp_path / "stsb" / "train.tsv").write_text(
        "score\tsentence1\tsentence2\n1.0\tA cat.\tA dog.\n2.0\tA dog.\tRain falls.\n4.0\tThe sun.\tHot sun.\n",
        encoding="utf-8",
    )
    (tmp_path / "stsb" / "dev.tsv").write_text("score\tsentence1\tsentence2\n3.0\tHot sun.\tSnow.\n", encoding="utf-8")
    (tmp_path / "stsb" / "test.tsv").write_text(
        "score\tsentence1\tsentence2\n3.0\tRain falls.\tSleet.\n", encoding="utf-8"
    )
    (tmp_path / "trec" / "train.tsv").write_text(
        "label\tsentence\n0\tWho won?\n1\tWhere is Rome?\n2\tWhat is rain?\n", encoding="utf-8"
    )
    return tmp_path


def test_the_pool_holds_training_sentences_never_seen_in_dev_or_test(data_dir):
    pool = silver_sentence_pool(data_dir, size=100)
    assert pool == ["A cat.", "A dog.", "The sun.", "Who won?", "Where is Rome?", "What is rain?"]
    assert {"Rain falls.", "Hot sun.", "Snow.", "Sleet."}.isdisjoint(pool)


def test_the_pool_is_a_seeded_sample_of_the_requested_size(data_dir):
    first = silver_sentence_pool(data_dir, size=3, seed=1)
    assert len(first) == 3 and first == silver_sentence_pool(data_dir, size=3, seed=1)
    assert set(first) <= set(silver_sentence_pool(data_dir, size=100))


def test_the_pool_refuses_dev_or_test_files_and_an_empty_folder(data_dir, tmp_path_factory):
    with pytest.raises(ValueError, match="never come from dev or test"):
        silver_sentence_pool(data_dir, files=["stsb/train.tsv", "stsb/test.tsv"])
    assert "stsb/dev.tsv" in HELD_OUT_FILES
    with pytest.raises(ValueError, match="none of the silver source files"):
        silver_sentence_pool(tmp_path_factory.mktemp("empty"))


def silver_options(data_dir, *options):
    parser = argparse.ArgumentParser()
    add_silver_arguments(parser)
    encoder = os.path.join(FIXTURES, "st_folders", "mpnet_mean_normalize_old")
    args = parser.parse_args(["--silver-encoder", encoder, *options])
    args.data, args.seed = data_dir, 0
    return args


def test_silver_source_keeps_the_pairs_in_domain(data_dir, tmp_path):
    gold = ScoredPairs(["A cat."], ["A dog."], [1.0])
    args = silver_options(data_dir, "--silver-pairs", "2", "--silver-source", "stsb/train.tsv")
    combined, labels = silver_training_pairs(args, make_tiny_cross_encoder(), tmp_path, gold=gold, log=lambda _: None)
    silver = set(combined.sentences1[1:]) | set(combined.sentences2[1:])
    assert len(labels.logits) == 2 and silver <= {"A cat.", "A dog.", "The sun."}  # STS-B train only
    everything = silver_options(data_dir, "--silver-pairs", "14")
    combined, _ = silver_training_pairs(everything, make_tiny_cross_encoder(), tmp_path, gold=gold, log=lambda _: None)
    assert "Who won?" in set(combined.sentences1) | set(combined.sentences2)  # default: every training file
    with pytest.raises(SystemExit):  # a dev or test file is not a choice
        silver_options(data_dir, "--silver-source", "stsb/test.tsv")


def clustered(count_per_cluster=5, clusters=4, seed=0):
    """Sentences s0…sN and embeddings in tight clusters: neighbours are cluster mates."""
    rng = np.random.default_rng(seed)
    centres = rng.normal(size=(clusters, 8)) * 10
    embeddings = np.repeat(centres, count_per_cluster, axis=0) + rng.normal(size=(clusters * count_per_cluster, 8))
    return [f"s{i}" for i in range(len(embeddings))], embeddings.astype(np.float32)


def test_neighbour_pairs_join_cluster_mates_and_random_pairs_fill_the_rest():
    sentences, embeddings = clustered()
    pairs = mine_silver_pairs(sentences, embeddings, count=20, neighbours=2, random_share=0.5, seed=0)
    assert len(pairs) == 20 and pairs.counts() == {"neighbour": 10, "random": 10}
    for a, b, strategy in zip(pairs.sentences1, pairs.sentences2, pairs.strategy):
        same_cluster = int(a[1:]) // 5 == int(b[1:]) // 5
        assert same_cluster or strategy == "random"


def test_no_pair_repeats_in_either_order_or_is_a_gold_pair():
    sentences, embeddings = clustered()
    gold = [("s2", "s3"), ("s4", "s2")]
    pairs = mine_silver_pairs(sentences, embeddings, count=150, neighbours=3, exclude_pairs=gold, seed=2)
    seen = {frozenset(pair) for pair in zip(pairs.sentences1, pairs.sentences2)}
    assert len(seen) == 150 and all(len(pair) == 2 for pair in seen)
    assert not seen & {frozenset(pair) for pair in gold}


def test_too_few_neighbours_are_made_up_with_random_pairs():
    sentences, embeddings = clustered(count_per_cluster=3, clusters=2)
    pairs = mine_silver_pairs(sentences, embeddings, count=12, neighbours=1, random_share=0.0)
    assert len(pairs) == 12 and 0 < pairs.counts()["neighbour"] < 12


def test_mining_refuses_bad_arguments():
    sentences, embeddings = clustered(count_per_cluster=2, clusters=2)
    with pytest.raises(ValueError, match="at most 6"):
        mine_silver_pairs(sentences, embeddings, count=7)
    with pytest.raises(ValueError, match="embeddings of shape"):
        mine_silver_pairs(sentences, embeddings[:3], count=2)
    with pytest.raises(ValueError, match="random_share"):
        mine_silver_pairs(sentences, embeddings, count=2, random_share=1.5)
    with pytest.raises(ValueError, match="must be distinct: 1 repeat"):
        mine_silver_pairs(["a", "b", "a", "c"], embeddings, count=2)


class KilledTeacher:
    """A cross-encoder that counts the pairs it scores and dies after `alive` calls."""

    def __init__(self, model, alive=None):
        self.model, self.alive, self.scored = model, alive, 0
        self.weights, self.num_labels = model.weights, model.num_labels

    def predict_pairs(self, first, second, **kwargs):
        if self.alive is not None:
            if self.alive == 0:
                raise KeyboardInterrupt("killed")
            self.alive -= 1
        self.scored += len(first)
        return self.model.predict_pairs(first, second, **kwargs)


FIRST = ["the cat sat", "a dog ran", "hello", "rain", "the oven", "a cat"]
SECOND = ["a cat", "the dog", "hello world", "storm", "bread", "the dog ran"]


def test_labels_equal_the_teachers_scores_and_a_killed_run_resumes_where_it_stopped(tmp_path):
    model = make_tiny_cross_encoder(num_labels=1)
    expected = model.predict_pairs(FIRST, SECOND)
    dying = KilledTeacher(model, alive=2)
    with pytest.raises(KeyboardInterrupt):
        label_silver_pairs(dying, FIRST, SECOND, tmp_path, chunk_size=2, progress=False)
    assert dying.scored == 4
    resumed = KilledTeacher(model)
    labels = label_silver_pairs(resumed, FIRST, SECOND, tmp_path, chunk_size=2, progress=False)
    assert resumed.scored == 2 and labels.computed == 2 and labels.pairs_per_second > 0
    np.testing.assert_allclose(labels.logits[:, 0], expected, atol=1e-5)
    cached = label_silver_pairs(KilledTeacher(model, alive=0), FIRST, SECOND, tmp_path, chunk_size=2, progress=False)
    assert cached.computed == 0 and cached.pairs_per_second is None


def test_other_teacher_weights_label_again_and_mismatched_lists_are_refused(tmp_path):
    model = make_tiny_cross_encoder(num_labels=1)
    label_silver_pairs(model, FIRST, SECOND, tmp_path, chunk_size=4, progress=False)
    bias = model.get_layer("logits").bias
    bias.assign(bias + 1.0)
    assert label_silver_pairs(model, FIRST, SECOND, tmp_path, chunk_size=4, progress=False).computed == 6
    with pytest.raises(ValueError, match="sentences2 has 5"):
        label_silver_pairs(model, FIRST, SECOND[:5], tmp_path)
