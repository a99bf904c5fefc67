"""TFDS splits with GLUE/SNLI feature names become our pair examples: STS-B keeps float
scores, class datasets drop unlabelled (-1) pairs; unknown datasets and missing features
are named."""

import numpy as np
import pytest
import tensorflow as tf

from keras_sentemb.data.tfds_adapters import TFDS_PAIR_FEATURES, tfds_pair_dataset, tfds_pair_examples
from tests.conftest import make_tiny_encoder


def snli_split():
    return tf.data.Dataset.from_tensor_slices(
        {"premise": ["a cat", "a dog", "rain"], "hypothesis": ["the cat", "a mat", "storm"], "label": [0, -1, 2]}
    )


def test_snli_pairs_without_a_gold_label_are_dropped():
    pairs = list(tfds_pair_examples(snli_split(), "snli").as_numpy_iterator())
    assert [(f["sentence1"], f["sentence2"], int(y)) for f, y in pairs] == [
        (b"a cat", b"the cat", 0),
        (b"rain", b"storm", 2),
    ]


def test_stsb_scores_stay_floats():
    split = tf.data.Dataset.from_tensor_slices({"sentence1": ["a"], "sentence2": ["b"], "label": [3.4], "idx": [0]})
    (features, score) = next(tfds_pair_examples(split, "glue/stsb").as_numpy_iterator())
    assert score.dtype == np.float32 and score == pytest.approx(3.4)


def test_unknown_datasets_and_missing_features_are_named():
    with pytest.raises(ValueError, match="unsupported TFDS dataset 'imdb'"):
        tfds_pair_examples(snli_split(), "imdb")
    with pytest.raises(ValueError, match=r"glue/mrpc: the dataset has no feature\(s\) \['sentence1', 'sentence2'\]"):
        tfds_pair_examples(snli_split(), "glue/mrpc")
    assert set(TFDS_PAIR_FEATURES) >= {"glue/stsb", "glue/mrpc", "snli", "multi_nli"}


def test_a_split_becomes_a_tokenised_training_pipeline():
    encoder = make_tiny_encoder()
    batch = next(
        iter(tfds_pair_dataset(snli_split(), "snli", encoder.tokenizer, batch_size=2, shuffle=False, bucketing=False))
    )
    features, labels = batch
    assert set(features) == {"sentence1", "sentence2"} and labels.shape[0] == 2


def test_a_tfds_builder_finds_its_own_code_on_a_clean_install():
    """`keras-sentemb evaluate --data tfds` builds TFDS builders, whose `code_path` imports `importlib_resources`:
    tensorflow-datasets declares it only for Python < 3.9, so keras-sentemb declares it."""
    import tensorflow_datasets as tfds

    assert tfds.builder_cls("glue").code_path.name == "glue.py"
