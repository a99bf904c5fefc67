"""Datasets by name: the same examples whether `--data` is a folder in the layout of
docs/data.md or TensorFlow Datasets (`tfds`, `tfds:DIR`), read through TFDS's own mock."""

import contextlib
import os
import socket
import time

import pytest
import tensorflow as tf
import tensorflow_datasets as tfds

from keras_sentemb.data import named_datasets
from keras_sentemb.data.examples import LabeledPairs, LabeledSentences, ScoredPairs
from keras_sentemb.data.named_datasets import (
    DATASETS,
    TREC_COARSE_LABELS,
    data_source,
    evaluation_split,
    labelled_splits,
    named_dataset,
    read_split,
    split_location,
    split_sentences,
)
from keras_sentemb.data.sentence_corpus import collect_sentences
from keras_sentemb.evaluation.builtin_tasks import build_tasks
from tests.conftest import FIXTURES

SAMPLE_DATA = os.path.normpath(os.path.join(FIXTURES, "..", "..", "docs", "sample_data"))
KINDS = {"scored pairs": ScoredPairs, "labelled pairs": LabeledPairs, "labelled sentences": LabeledSentences}


@contextlib.contextmanager
def tfds_mock(examples=None, num_examples=6):
    """TFDS's mock: `tfds.load` gives `num_examples` random examples of each dataset's real
    features, or `examples(builder, split)` when given; yields the (TFDS name, split) loaded."""
    loaded = []

    def as_dataset(builder, split, **kwargs):
        name = builder.name + (f"/{builder.builder_config.name}" if builder.builder_config else "")
        loaded.append((name, str(split)))
        return tf.data.Dataset.from_tensor_slices(examples(name, str(split)))

    if examples is None:
        with tfds.testing.mock_data(num_examples=num_examples):
            real_load = tfds.load

            def recording_load(name, split, **kwargs):
                loaded.append((name, split))
                return real_load(name, split=split, **kwargs)

            with pytest.MonkeyPatch.context() as patch:
                patch.setattr(named_datasets.tfds, "load", recording_load)
                yield loaded
    else:
        with tfds.testing.mock_data(as_dataset_fn=as_dataset):
            yield loaded


@pytest.mark.parametrize("dataset", DATASETS, ids=lambda d: d.name)
def test_every_labelled_tfds_split_reads_as_its_kind_from_its_tfds_name(dataset):
    with tfds_mock() as loaded:
        for split in dataset.labelled_tfds_splits:
            examples = read_split("tfds", dataset.tfds_name, split)
            assert isinstance(examples, KINDS[dataset.kind])
            assert len(examples) + examples.skipped == 6
    assert loaded == [(dataset.tfds_name, dataset.tfds_splits[s]) for s in dataset.labelled_tfds_splits]


def test_short_names_and_tfds_names_are_the_same_dataset():
    assert named_dataset("glue/stsb") is named_dataset("stsb")
    assert named_dataset("snli").tfds_name == "snli"
    with pytest.raises(ValueError, match=r"unknown dataset 'glue/qqp'; known: stsb \(glue/stsb\)"):
        named_dataset("glue/qqp")


def test_tfds_examples_become_the_same_types_and_label_integers_as_the_folder():
    def examples(name, split):
        if name == "trec":
            return {"text": [b"Who wrote Hamlet ?"], "label-coarse": [3], "label-fine": [4]}
        return {
            "premise": [b"A man sings .", b"A dog runs ."],
            "hypothesis": [b"Someone sings .", b"x"],
            "label": [0, 2],
        }

    with tfds_mock(examples) as loaded:
        trec = read_split("tfds:/somewhere", "trec", "train")
        snli = read_split("tfds", "snli", "dev")
    assert loaded == [("trec", "train"), ("snli", "validation")]
    assert (trec.sentences, trec.labels, trec.label_names[trec.labels[0]]) == (["Who wrote Hamlet ?"], [3], "HUM")
    assert snli.labels == [0, 2] and snli.label_names == ("entailment", "neutral", "contradiction")
    folder_trec = read_split(SAMPLE_DATA, "trec", "train")
    assert folder_trec.label_names == TREC_COARSE_LABELS
    assert all(isinstance(label, int) and 0 <= label < 6 for label in folder_trec.labels)


def test_tfds_pairs_without_a_gold_label_are_skipped_and_counted():
    def examples(name, split):
        return {"premise": [b"a", b"b", b"c"], "hypothesis": [b"d", b"e", b"f"], "label": [1, -1, 0]}

    with tfds_mock(examples):
        snli = read_split("tfds", "snli", "train")
    assert (snli.sentences1, snli.labels, snli.skipped) == (["a", "c"], [1, 0], 1)


def test_glue_test_labels_are_secret_in_tfds_so_evaluation_falls_back_to_dev():
    with pytest.raises(ValueError, match="glue/stsb has no labelled 'test' split .*keeps test labels secret"):
        read_split("tfds", "stsb", "test")
    assert labelled_splits("tfds", "stsb") == ("train", "dev")
    assert (evaluation_split("tfds", "mrpc"), evaluation_split(SAMPLE_DATA, "stsb")) == ("dev", "test")
    assert evaluation_split("tfds", "trec") == "test"

    def examples(name, split):
        return {"sentence1": [b"one", b"two"], "sentence2": [b"three", b"four"], "label": [-1.0, -1.0]}

    with tfds_mock(examples) as loaded:  # the sentences of a secret test set are still readable
        assert split_sentences("tfds", "stsb", "test") == ["one", "three", "two", "four"]
    assert loaded == [("glue/stsb", "test")]


def test_a_tfds_load_failure_says_how_to_prepare_the_data(monkeypatch):
    def offline(*args, **kwargs):
        raise ConnectionError("no route to host")

    monkeypatch.setattr(named_datasets.tfds, "load", offline)
    with pytest.raises(
        OSError, match=r"tfds:glue/stsb\[train\]: TensorFlow Datasets could not provide it .*tfds build"
    ):
        read_split("tfds:/data/tfds", "stsb", "train")


def test_every_dataset_of_the_folder_layout_reads_from_the_sample_folder():
    for dataset in DATASETS:
        for split in labelled_splits(SAMPLE_DATA, dataset):
            examples = read_split(SAMPLE_DATA, dataset, split)
            assert isinstance(examples, KINDS[dataset.kind]) and len(examples) > 0
    assert labelled_splits(SAMPLE_DATA, "snli") == ("train", "dev", "test")
    assert labelled_splits(SAMPLE_DATA, "multi_nli") == ()
    assert split_location(SAMPLE_DATA, "mrpc", "test") == os.path.join(SAMPLE_DATA, "mrpc", "test.tsv")


def test_data_is_required_and_named_plainly(tmp_path):
    with pytest.raises(ValueError, match="no data given: pass --data FOLDER"):
        data_source(None)
    with pytest.raises(FileNotFoundError, match="'glue/stsb': no such folder .*pass --data tfds"):
        data_source("glue/stsb")
    with pytest.raises(FileNotFoundError, match=r"stsb/train.tsv: no such file"):
        read_split(str(tmp_path), "stsb", "train")
    with pytest.raises(ValueError, match="mrpc has no 'dev' file in the folder layout"):
        read_split(SAMPLE_DATA, "mrpc", "dev")
    assert str(data_source("tfds:~/tfds")) == f"tfds:{os.path.expanduser('~/tfds')}"


def test_evaluate_tasks_by_tfds_name_measure_on_validation_where_test_is_secret():
    with tfds_mock() as loaded:
        tasks = build_tasks(["stsb-dev", "glue/mrpc", "glue/sst2", "trec", "snli", "hash-recall"], data="tfds")
        with pytest.raises(ValueError, match="keeps test labels secret"):
            build_tasks(["glue/stsb"], data="tfds")
    assert [t.name for t in tasks] == ["stsb-dev", "mrpc-dev", "sst2-dev", "trec", "snli", "hash-recall"]
    assert ("glue/mrpc", "validation") in loaded and ("glue/stsb", "test") in loaded  # hash-recall's sentences
    assert tasks[1].source == "tfds:glue/mrpc[validation]"


def test_the_folder_tasks_read_the_same_files_as_before():
    tasks = build_tasks(["mrpc", "snli"], data=SAMPLE_DATA)
    assert [t.name for t in tasks] == ["mrpc", "snli"]
    assert tasks[0].source == os.path.join(SAMPLE_DATA, "mrpc", "test.tsv")


def test_a_tfds_sentence_corpus_keeps_the_secret_test_sentences_out():
    def examples(name, split):
        if name == "glue/stsb":
            shared = b"shared sentence"
            return {"sentence1": [shared, f"{split} a".encode()], "sentence2": [b"b", b"c"], "label": [1.0, 2.0]}
        if name in ("glue/sst2", "trec"):
            key = "sentence" if name == "glue/sst2" else "text"
            extra = {"label-coarse": [0], "label-fine": [0]} if name == "trec" else {"label": [0]}
            return {key: [f"{name} {split}".encode()], **extra}
        return {
            "sentence1" if name == "glue/mrpc" else "premise": [f"{name} {split}".encode()],
            "sentence2" if name == "glue/mrpc" else "hypothesis": [b"shared sentence"],
            "label": [0],
        }

    with tfds_mock(examples):
        sentences = collect_sentences("tfds", exclude_files=["stsb/test.tsv"])
    assert "shared sentence" not in sentences and "b" not in sentences  # stsb test's own sentences
    assert "train a" in sentences and "test a" not in sentences
    assert "multi_nli train" in sentences and "trec test" in sentences


def test_tfds_without_internet_fails_in_seconds_and_leaves_the_data_dir_as_it_was(tmp_path, monkeypatch):
    """ "Offline" here: every HTTP(S) request of TFDS goes to a closed loopback port through the proxy
    settings, so nothing leaves the machine; TFDS's own retries would take 200 s."""
    with socket.socket() as unused:
        unused.bind(("127.0.0.1", 0))
        closed = f"http://127.0.0.1:{unused.getsockname()[1]}"
    for name in ("HTTPS_PROXY", "HTTP_PROXY", "https_proxy", "http_proxy"):
        monkeypatch.setenv(name, closed)
    for name in ("NO_PROXY", "no_proxy"):
        monkeypatch.delenv(name, raising=False)
    data_dir = tmp_path / "tfds"
    (data_dir / "other_dataset").mkdir(parents=True)
    (data_dir / "other_dataset" / "kept.txt").write_text("someone else's")
    start = time.perf_counter()
    with pytest.raises(OSError, match=r"tfds:glue/stsb\[validation\]: TensorFlow Datasets could not provide it"):
        read_split(f"tfds:{data_dir}", "stsb", "dev")
    assert time.perf_counter() - start < 10
    assert sorted(str(p.relative_to(data_dir)) for p in data_dir.rglob("*")) == [
        "other_dataset",
        "other_dataset/kept.txt",
    ]
    assert named_datasets.tfds_downloader.MAX_RETRIES == 10  # TFDS's setting is put back
