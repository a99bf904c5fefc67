"""Benchmark datasets by name, read from a local folder or from TensorFlow Datasets.

Every training and evaluation command, example and recipe takes `--data` (or `data=`):

- a folder in the layout below (docs/data.md), or
- `tfds` (TensorFlow Datasets' own data dir, `$TFDS_DATA_DIR` or `~/tensorflow_datasets`) or
  `tfds:DIR`: each dataset is then read by its TFDS name with `tfds.load`.

Datasets are named by their short name or their TFDS name; both work wherever a command asks
for one (`--task glue/stsb` is `--task stsb`):

| name | TFDS name | kind | folder files | TFDS splits (ours → theirs) |
|---|---|---|---|---|
| `stsb` | `glue/stsb` | scored pairs (0–5) | `stsb/{train,dev,test}.tsv` | train, dev → validation, test* |
| `mrpc` | `glue/mrpc` | labelled pairs (2) | `mrpc/{train,test}.tsv` | train, dev → validation, test* |
| `sst2` | `glue/sst2` | labelled sentences (2) | `sst2/{train,dev,test}.tsv` | train, dev → validation, test* |
| `trec` | `trec` | labelled sentences (6, coarse) | `trec/{train,test}.tsv` | train, test |
| `snli` | `snli` | labelled pairs (NLI, 3) | `nli/snli_{train_subset,dev,test}.tsv.gz` | train, dev → validation, test |
| `multi_nli` | `multi_nli` | labelled pairs (NLI, 3) | `nli/multinli_{train,dev}.tsv.gz` | train, dev → validation_matched |

*GLUE keeps its test labels secret, so TFDS's `glue/*` test splits are unlabelled: `read_split`
refuses them with a `ValueError` that says so (use a folder for those test sets), while
`split_sentences` reads their sentences (to keep them out of a training corpus). Class labels are the
same integers from both routes (`label_names[i]` names class i; TFDS's order), and TFDS
examples without a label (-1: SNLI pairs without a gold label) are skipped and counted. A TFDS
dataset that is not in the data dir yet is downloaded by TFDS; on a machine without internet that
fails in seconds (TFDS's download tries bounded to `TFDS_DOWNLOAD_TRIES`) with an `OSError` that says
how to prepare the data elsewhere, and leaves nothing behind under the data dir.

    read_split("tfds", "glue/stsb", "dev")
    read_split("/data/benchmarks", "stsb", "dev")
"""

import contextlib
import dataclasses
import logging
import os
import shutil
import threading

import tensorflow_datasets as tfds
from tensorflow_datasets.core.download import downloader as tfds_downloader

from keras_sentemb.data.examples import (
    NLI_LABELS,
    LabeledPairs,
    LabeledSentences,
    ScoredPairs,
    read_labeled_pairs,
    read_labeled_sentences,
    read_scored_pairs,
    sentence_value,
)

SCORED_PAIRS, LABELED_PAIRS, LABELED_SENTENCES = "scored pairs", "labelled pairs", "labelled sentences"
TREC_COARSE_LABELS = ("DESC", "ENTY", "ABBR", "HUM", "NUM", "LOC")  # TFDS trec `label-coarse` order


@dataclasses.dataclass(frozen=True)
class NamedDataset:
    """One dataset: where its splits live in a folder and in TFDS, and how to read them."""

    name: str
    tfds_name: str
    kind: str
    files: dict  # split → file under the data folder
    tfds_splits: dict  # split → TFDS split
    text_features: tuple  # TFDS features = folder columns of the text(s)
    label_feature: str  # TFDS feature of the label (the folder column is `score` or `label`)
    label_names: tuple = ()  # class names in TFDS's order; folder labels are these or ints
    num_classes: int = None
    unlabelled_in_tfds: tuple = ()  # splits TFDS has without labels (GLUE's test sets)
    what: str = ""
    licence: str = ""

    @property
    def splits(self):
        return tuple(dict.fromkeys([*self.files, *self.tfds_splits]))

    @property
    def labelled_tfds_splits(self):
        return tuple(split for split in self.tfds_splits if split not in self.unlabelled_in_tfds)


DATASETS = (
    NamedDataset(
        "stsb",
        "glue/stsb",
        SCORED_PAIRS,
        {"train": "stsb/train.tsv", "dev": "stsb/dev.tsv", "test": "stsb/test.tsv"},
        {"train": "train", "dev": "validation", "test": "test"},
        ("sentence1", "sentence2"),
        "label",
        unlabelled_in_tfds=("test",),
        what="STS Benchmark (Cer et al. 2017): sentence pairs scored 0–5 for similarity",
        licence="CC BY-SA 4.0 scores; sentences keep their sources' terms",
    ),
    NamedDataset(
        "mrpc",
        "glue/mrpc",
        LABELED_PAIRS,
        {"train": "mrpc/train.tsv", "test": "mrpc/test.tsv"},
        {"train": "train", "dev": "validation", "test": "test"},
        ("sentence1", "sentence2"),
        "label",
        num_classes=2,
        unlabelled_in_tfds=("test",),
        what="Microsoft Research Paraphrase Corpus: news sentence pairs, paraphrase or not",
        licence="Microsoft Research Shared Source licence (non-commercial research)",
    ),
    NamedDataset(
        "sst2",
        "glue/sst2",
        LABELED_SENTENCES,
        {"train": "sst2/train.tsv", "dev": "sst2/dev.tsv", "test": "sst2/test.tsv"},
        {"train": "train", "dev": "validation", "test": "test"},
        ("sentence",),
        "label",
        num_classes=2,
        unlabelled_in_tfds=("test",),
        what="Stanford Sentiment Treebank, binary: movie-review phrases, negative (0) or positive (1)",
        licence="Stanford research use",
    ),
    NamedDataset(
        "trec",
        "trec",
        LABELED_SENTENCES,
        {"train": "trec/train.tsv", "test": "trec/test.tsv"},
        {"train": "train", "test": "test"},
        ("text",),
        "label-coarse",
        label_names=TREC_COARSE_LABELS,
        what="TREC question classification (Li & Roth 2002): 6 coarse answer types",
        licence="none stated; the UIUC release is freely downloadable for research",
    ),
    NamedDataset(
        "snli",
        "snli",
        LABELED_PAIRS,
        {"train": "nli/snli_train_subset.tsv.gz", "dev": "nli/snli_dev.tsv.gz", "test": "nli/snli_test.tsv.gz"},
        {"train": "train", "dev": "validation", "test": "test"},
        ("premise", "hypothesis"),
        "label",
        label_names=NLI_LABELS,
        what="Stanford NLI (Bowman et al. 2015): premise/hypothesis pairs, entailment/neutral/contradiction",
        licence="CC BY-SA 4.0",
    ),
    NamedDataset(
        "multi_nli",
        "multi_nli",
        LABELED_PAIRS,
        {"train": "nli/multinli_train.tsv.gz", "dev": "nli/multinli_dev.tsv.gz"},
        {"train": "train", "dev": "validation_matched"},
        ("premise", "hypothesis"),
        "label",
        label_names=NLI_LABELS,
        what="MultiNLI (Williams et al. 2018): NLI pairs from ten genres",
        licence="OANC text is free; fiction and other genres under their own open terms (see the corpus)",
    ),
)
_BY_NAME = {key: d for d in DATASETS for key in (d.name, d.tfds_name)}


def named_dataset(name):
    """The `NamedDataset` called `name` (short or TFDS name), else `ValueError` naming them all."""
    if isinstance(name, NamedDataset):
        return name
    if name not in _BY_NAME:
        known = ", ".join(f"{d.name} ({d.tfds_name})" for d in DATASETS)
        raise ValueError(f"unknown dataset {name!r}; known: {known}")
    return _BY_NAME[name]


@dataclasses.dataclass(frozen=True)
class DataSource:
    """Where datasets are read from: a `folder`, or TFDS (`tfds_dir` None = TFDS's default)."""

    folder: str = None
    tfds: bool = False
    tfds_dir: str = None

    def __str__(self):
        if self.tfds:
            return "tfds" + (f":{self.tfds_dir}" if self.tfds_dir else "")
        return self.folder


def data_source(data):
    """A `DataSource` from `--data`: a folder, `tfds` or `tfds:DIR` (or a `DataSource`).

    Raises ValueError when nothing is given, FileNotFoundError for a missing folder.
    """
    if isinstance(data, DataSource):
        return data
    if data is None or os.fspath(data) == "":
        raise ValueError(
            "no data given: pass --data FOLDER (the layout of docs/data.md), --data tfds or --data tfds:DIR "
            "(TensorFlow Datasets), or set $KERAS_SENTEMB_DATA"
        )
    data = os.fspath(data)
    if data == "tfds":
        return DataSource(tfds=True)
    if data.startswith("tfds:"):
        return DataSource(tfds=True, tfds_dir=os.path.expanduser(data[len("tfds:") :]))
    if not os.path.isdir(data):
        hint = f" (a TFDS name: pass --data tfds and name {data!r} as the task)" if data in _BY_NAME else ""
        raise FileNotFoundError(f"--data {data!r}: no such folder{hint}; or use --data tfds[:DIR]")
    return DataSource(folder=data)


def labelled_splits(data, dataset):
    """The splits of `dataset` that `data` can give with labels (files present; TFDS's labelled)."""
    source, dataset = data_source(data), named_dataset(dataset)
    if source.tfds:
        return dataset.labelled_tfds_splits
    return tuple(split for split, path in dataset.files.items() if os.path.isfile(os.path.join(source.folder, path)))


def evaluation_split(data, dataset):
    """`"test"` where `data` labels the test split, else `"dev"` (TFDS's GLUE sets)."""
    return "test" if "test" in labelled_splits(data, dataset) else "dev"


def split_location(data, dataset, split):
    """Where a split is read from, for reports: the file path, or `tfds:NAME[split]`."""
    source, dataset = data_source(data), named_dataset(dataset)
    if source.tfds:
        return f"tfds:{dataset.tfds_name}[{dataset.tfds_splits.get(split, split)}]"
    return os.path.join(source.folder, dataset.files.get(split, f"{dataset.name}/{split}"))


def read_split(data, dataset, split):
    """`ScoredPairs`, `LabeledPairs` or `LabeledSentences` of one split of `dataset`.

    Raises ValueError for a split the dataset does not have (or has unlabelled in TFDS),
    FileNotFoundError for a missing folder file, OSError when TFDS cannot provide the data.
    """
    source, dataset = data_source(data), named_dataset(dataset)
    if split not in dataset.splits:
        raise ValueError(f"{dataset.name} has no split {split!r}; it has {list(dataset.splits)}")
    if source.tfds:
        return _read_tfds(source, dataset, split)
    if split not in dataset.files:
        raise ValueError(
            f"{dataset.name} has no {split!r} file in the folder layout (it has {list(dataset.files)}); "
            f"TFDS's {dataset.tfds_name} has it: --data tfds"
        )
    path = os.path.join(source.folder, dataset.files[split])
    if not os.path.isfile(path):
        raise FileNotFoundError(
            f"{path}: no such file (--data {source} lacks {dataset.name} {split}; see docs/data.md)"
        )
    first, *rest = dataset.text_features
    if dataset.kind == SCORED_PAIRS:
        return read_scored_pairs(path, first, rest[0])
    if dataset.kind == LABELED_PAIRS:
        return read_labeled_pairs(
            path, first, rest[0], label_names=dataset.label_names or None, num_classes=dataset.num_classes
        )
    return read_labeled_sentences(
        path,
        "sentence",
        label_names=dataset.label_names or None,
        num_classes=dataset.num_classes,
    )


def split_sentences(data, dataset, split):
    """Every sentence of one split, text columns in order, row by row (pairs give two each);
    TFDS splits without labels are read too."""
    source, dataset = data_source(data), named_dataset(dataset)
    examples = _read_tfds(source, dataset, split, labelled=False) if source.tfds else read_split(source, dataset, split)
    if isinstance(examples, LabeledSentences):
        return list(examples.sentences)
    return [sentence for pair in zip(examples.sentences1, examples.sentences2) for sentence in pair]


# Tries of each TFDS download request (TFDS's own default, 10 with exponential back-off from 0.2 s,
# spends 200 s on a machine without internet before it fails); 2 still ride out a transient error.
TFDS_DOWNLOAD_TRIES = 2
_TFDS_ATTEMPT = threading.Lock()


def _paths_under(folder):
    return {os.path.join(root, name) for root, dirs, files in os.walk(folder) for name in dirs + files}


@contextlib.contextmanager
def _tfds_attempt(data_dir):
    """A TFDS load that fails fast and leaves nothing behind: TFDS's download tries bounded to
    `TFDS_DOWNLOAD_TRIES`, and when the block fails, every file and folder it created under the data
    dir (`data_dir`, else `$TFDS_DATA_DIR`, else `~/tensorflow_datasets`) removed again — the empty
    dataset folders, metadata and `*.tmp.*` downloads of an attempt without internet."""
    data_dir = (
        data_dir or os.environ.get("TFDS_DATA_DIR") or os.path.join(os.path.expanduser("~"), "tensorflow_datasets")
    )
    existed = os.path.isdir(data_dir)
    before = _paths_under(data_dir) if existed else set()
    retries_log = logging.getLogger("urllib3.connectionpool")  # "Retrying (Retry(total=…))": the error says why
    with _TFDS_ATTEMPT:  # the retry bound is TFDS's module setting: one attempt at a time changes it
        tries, tfds_downloader.MAX_RETRIES = tfds_downloader.MAX_RETRIES, TFDS_DOWNLOAD_TRIES
        level = retries_log.level
        retries_log.setLevel(logging.ERROR)
        try:
            yield
        except BaseException:
            for path in sorted(_paths_under(data_dir) - before, key=lambda p: p.count(os.sep), reverse=True):
                if os.path.isdir(path) and not os.path.islink(path):
                    shutil.rmtree(path, ignore_errors=True)
                elif os.path.lexists(path):
                    os.remove(path)
            if not existed:
                shutil.rmtree(data_dir, ignore_errors=True)
            raise
        finally:
            tfds_downloader.MAX_RETRIES = tries
            retries_log.setLevel(level)


def _read_tfds(source, dataset, split, labelled=True):
    if split not in dataset.tfds_splits or (labelled and split in dataset.unlabelled_in_tfds):
        raise ValueError(
            f"TFDS's {dataset.tfds_name} has no labelled {split!r} split (GLUE keeps test labels secret); "
            f"labelled: {list(dataset.labelled_tfds_splits)}. Use a folder with "
            f"{dataset.files.get(split, 'that split')} (docs/data.md)"
        )
    where = split_location(source, dataset, split)
    try:
        with _tfds_attempt(source.tfds_dir):
            examples = tfds.load(dataset.tfds_name, split=dataset.tfds_splits[split], data_dir=source.tfds_dir)
    except Exception as error:  # download, preparation or data-dir errors of every kind
        raise OSError(
            f"{where}: TensorFlow Datasets could not provide it ({type(error).__name__}: {error}). On a machine "
            f"with internet, prepare it (`tfds build {dataset.tfds_name}`, or tfds.load once) and pass "
            "--data tfds:DATA_DIR, or use a local folder (docs/data.md)"
        ) from error
    texts, labels, skipped = [[] for _ in dataset.text_features], [], 0
    for number, example in enumerate(tfds.as_numpy(examples)):
        label = example[dataset.label_feature]
        values = [example[feature].decode("utf-8") for feature in dataset.text_features]
        if (labelled and label < 0) or not all(value.strip() for value in values):
            skipped += 1  # no gold label (SNLI's "-"), or an empty sentence
            continue
        for column, value in zip(texts, values):
            column.append(sentence_value(value))
        labels.append(float(label) if dataset.kind == SCORED_PAIRS else int(label))
        if labelled and dataset.kind == SCORED_PAIRS and not 0.0 <= labels[-1] <= 5.0:
            raise ValueError(f"{where}: example {number}: score {labels[-1]} outside [0, 5]")
    if not labels:
        raise ValueError(f"{where}: no labelled examples ({skipped} skipped)")
    if dataset.kind == SCORED_PAIRS:
        return ScoredPairs(*texts, labels, skipped=skipped)
    if dataset.kind == LABELED_PAIRS:
        return LabeledPairs(*texts, labels, label_names=dataset.label_names, skipped=skipped)
    return LabeledSentences(*texts, labels, label_names=dataset.label_names, skipped=skipped)


DATA_HELP = (
    "the data: a folder in the layout of docs/data.md, or tfds / tfds:DIR to read each dataset by its "
    "TensorFlow Datasets name (default: $KERAS_SENTEMB_DATA)"
)


def add_data_argument(parser):
    """Adds `--data` (default `$KERAS_SENTEMB_DATA`, never a path of its own) to an argparse parser."""
    parser.add_argument("--data", default=os.environ.get("KERAS_SENTEMB_DATA"), help=DATA_HELP)
