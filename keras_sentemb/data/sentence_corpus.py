"""Unlabelled sentences gathered from the benchmark files of a data folder (or from TFDS).

Distillation (hashing heads, BiLSTM-SRA) and retrieval benchmarks need many plain
sentences; the labelled benchmark files under the benchmark data folder (docs/data.md) hold about 165k distinct
ones. `collect_sentences` reads the sentence columns of the files it finds, keeps the
first occurrence of each distinct sentence, and returns them in a fixed order.

Example:
(Not run as a doctest: it reads files of the benchmark data folder (docs/data.md).)
    sentences = collect_sentences("data", exclude_files=["stsb/test.tsv"])

With `data="tfds"` the same file names stand for the TFDS splits they correspond to
(`keras_sentemb.data.named_datasets`; `nli/snli_train_subset.tsv.gz` is then all of SNLI train);
files whose split TFDS does not label (GLUE's test sets) are left out of the default, but are
read when excluded, so that their sentences stay out.
"""

import os

from keras_sentemb.data.examples import sentence_value
from keras_sentemb.data.named_datasets import DATASETS, data_source, split_sentences
from keras_sentemb.data.table_reader import read_table

# File (relative to the data folder) → its sentence columns, the layout of the benchmark data folder (docs/data.md).
SENTENCE_COLUMNS = {
    "stsb/train.tsv": ("sentence1", "sentence2"),
    "stsb/dev.tsv": ("sentence1", "sentence2"),
    "stsb/test.tsv": ("sentence1", "sentence2"),
    "mrpc/train.tsv": ("sentence1", "sentence2"),
    "mrpc/test.tsv": ("sentence1", "sentence2"),
    "nli/snli_train_subset.tsv.gz": ("premise", "hypothesis"),
    "nli/snli_dev.tsv.gz": ("premise", "hypothesis"),
    "nli/snli_test.tsv.gz": ("premise", "hypothesis"),
    "sst2/train.tsv": ("sentence",),
    "sst2/dev.tsv": ("sentence",),
    "sst2/test.tsv": ("sentence",),
    "trec/train.tsv": ("sentence",),
    "trec/test.tsv": ("sentence",),
    "nli/multinli_train.tsv.gz": ("premise", "hypothesis"),
    "nli/multinli_dev.tsv.gz": ("premise", "hypothesis"),
}
# File → (dataset, split): what a file name stands for when the data comes from TFDS.
FILE_SPLITS = {path: (dataset, split) for dataset in DATASETS for split, path in dataset.files.items()}


def collect_sentences(data, files=None, exclude_files=()):
    """Distinct non-empty sentences of `files` (default: every known file present), in
    file order then row order; sentences that also occur in `exclude_files` are left out.
    `data` is a data folder, `"tfds"` or `"tfds:DIR"` (`named_datasets.data_source`).

    Raises:
        FileNotFoundError: the data folder is missing, or a file named in `files` is.
        ValueError: an unknown file name (no known sentence columns), or a bad row
            (`path:line`).
    """
    source = data_source(data)
    for name in list(files or ()) + list(exclude_files):
        if name not in SENTENCE_COLUMNS:
            raise ValueError(f"unknown data file {name!r}; known: {sorted(SENTENCE_COLUMNS)}")
    if files is None:
        files = available_files(source)
    excluded = set()
    for name in exclude_files:
        excluded.update(_read_sentences(source, name))
    seen, sentences = set(excluded), []
    for name in files:
        for sentence in _read_sentences(source, name):
            if sentence not in seen:
                seen.add(sentence)
                sentences.append(sentence)
    return sentences


def available_files(data):
    """The known data files (`SENTENCE_COLUMNS`) that `data` holds: present in the folder,
    or labelled by TFDS; in `SENTENCE_COLUMNS` order."""
    source = data_source(data)
    return [name for name in SENTENCE_COLUMNS if _available(source, name)]


def _available(source, name):
    if source.tfds:
        dataset, split = FILE_SPLITS[name]
        return split in dataset.labelled_tfds_splits
    return os.path.exists(os.path.join(source.folder, name))


def _read_sentences(source, name):
    if source.tfds:
        return split_sentences(source, *FILE_SPLITS[name])
    path = os.path.join(source.folder, name)
    if not os.path.exists(path):
        raise FileNotFoundError(f"{path} does not exist")
    fields = {column: (column, sentence_value) for column in SENTENCE_COLUMNS[name]}
    columns, _ = read_table(path, fields)
    rows = zip(*(columns[column] for column in SENTENCE_COLUMNS[name]))
    return [sentence for row in rows for sentence in row]
