"""TensorFlow Datasets with GLUE/SNLI feature names as keras-sentemb training pipelines."""

import tensorflow as tf

from keras_sentemb.data.pipelines import PAIR_KEYS, text_pipeline

# name: (first sentence feature, second sentence feature, label dtype)
TFDS_PAIR_FEATURES = {
    "glue/stsb": ("sentence1", "sentence2", tf.float32),
    "glue/mrpc": ("sentence1", "sentence2", tf.int32),
    "snli": ("premise", "hypothesis", tf.int32),
    "multi_nli": ("premise", "hypothesis", tf.int32),
}


def tfds_pair_examples(dataset, name):
    """Maps a TFDS split of `name` to `({"sentence1", "sentence2"}, label)` elements.

    SNLI/MultiNLI pairs without a gold label (label -1) are dropped. GLUE STS-B labels
    stay scores in [0, 5]; the others are class indices.
    """
    if name not in TFDS_PAIR_FEATURES:
        raise ValueError(f"unsupported TFDS dataset {name!r}; known: {sorted(TFDS_PAIR_FEATURES)}")
    first, second, label_dtype = TFDS_PAIR_FEATURES[name]
    missing = [f for f in (first, second, "label") if f not in dataset.element_spec]
    if missing:
        raise ValueError(f"{name}: the dataset has no feature(s) {missing}")

    def to_pair(example):
        features = {PAIR_KEYS[0]: example[first], PAIR_KEYS[1]: example[second]}
        return features, tf.cast(example["label"], label_dtype)

    pairs = dataset.map(to_pair)
    if label_dtype == tf.int32:
        pairs = pairs.filter(lambda features, label: label >= 0)
    return pairs


def tfds_pair_dataset(dataset, name, tokenizer, **kwargs):
    """A training pipeline from a TFDS split (`tfds.load("glue/stsb", split="train")`).

    Example (not run as a doctest: it downloads a TFDS data set)::

        train = tfds_pair_dataset(tfds.load("snli", split="train"), "snli", encoder.tokenizer)
    """
    return text_pipeline(tfds_pair_examples(dataset, name), tokenizer, **kwargs)
