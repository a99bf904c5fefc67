"""Task names understood by `keras-sentemb evaluate --tasks ...`, built from files or TFDS.

`data` is a data folder, `tfds` or `tfds:DIR` (`keras_sentemb.data.named_datasets`); tasks
may be named by their dataset's TFDS name too (`glue/stsb` is `stsb`, `glue/mrpc` is `mrpc`).

| name | dataset (under the data folder) | measure |
|---|---|---|
| `stsb` / `stsb-dev` | `stsb/test.tsv` / `stsb/dev.tsv` | STS Spearman × 100 |
| `mrpc` | `mrpc/train.tsv` (threshold) → `mrpc/test.tsv` | accuracy / F1 |
| `sst2` | `sst2/{train,dev,test}.tsv` | probe accuracy |
| `trec` | `trec/{train,test}.tsv` | probe accuracy (C by inner 5-fold) |
| `snli` | `nli/snli_train_subset` → `snli_dev` (C) → `snli_test` | NLI probe accuracy |
| `sts-dir` | every file of `--sts-dir` | STS Spearman each |
| `senteval-dir` | every task of `--senteval-dir` | probe accuracy each |
| `hash-recall` | STS-B dev + test sentences | recall@10 vs code bits |

From TFDS, whose GLUE test sets have no labels, `mrpc` and `sst2` are measured on their
validation splits and named `mrpc-dev` and `sst2-dev` (train → validation, C by inner k-fold);
`stsb` (test) is refused, `stsb-dev` works, and `hash-recall` reads the unlabelled test sentences.
"""

import os

from keras_sentemb.data.named_datasets import (
    DATASETS,
    data_source,
    evaluation_split,
    named_dataset,
    read_split,
    split_location,
    split_sentences,
)
from keras_sentemb.evaluation.task_files import (
    classification_folder_tasks,
    read_classification_file,
    read_sts_file,
    sts_folder_files,
)
from keras_sentemb.evaluation.tasks import (
    HashRecallTask,
    NLIProbeTask,
    PairClassificationTask,
    ProbeTask,
    STSTask,
)

TASK_NAMES = ("stsb", "stsb-dev", "mrpc", "sst2", "trec", "snli", "sts-dir", "senteval-dir", "hash-recall")
# Each task that reads a named dataset answers to that dataset's TFDS name too (`glue/stsb` is `stsb`).
TFDS_TASK_NAMES = {d.tfds_name: d.name for d in DATASETS if d.name in TASK_NAMES}


def _stsb(data, split):
    name = "stsb" if split == "test" else "stsb-dev"
    return [STSTask(name, read_split(data, "stsb", split), source=split_location(data, "stsb", split))]


def _mrpc(data):
    split = evaluation_split(data, "mrpc")
    return [
        PairClassificationTask(
            "mrpc" if split == "test" else "mrpc-dev",
            read_split(data, "mrpc", "train"),
            read_split(data, "mrpc", split),
            source=split_location(data, "mrpc", split),
        )
    ]


def _split_probe(name, files, seed):
    return ProbeTask(
        name,
        read_classification_file(files["train"]),
        test=read_classification_file(files["test"]),
        dev=read_classification_file(files["dev"]) if files.get("dev") else None,
        seed=seed,
        source=files["test"],
    )


def _sentence_probe(data, name, seed):
    """The probe of sst2 or trec: from a folder as `label<TAB>sentence` files (labels kept as
    strings); from TFDS with the labelled splits it has."""
    source, dataset = data_source(data), named_dataset(name)
    if not source.tfds:
        files = {split: split_location(source, dataset, split) for split in dataset.files}
        for path in files.values():
            if not os.path.isfile(path):
                raise FileNotFoundError(f"{path}: no such file (set --data to a folder in the layout of docs/data.md)")
        return [_split_probe(name, files, seed)]
    split = evaluation_split(source, dataset)
    dev = "dev" if split == "test" and "dev" in dataset.labelled_tfds_splits else None
    return [
        ProbeTask(
            name if split == "test" else f"{name}-dev",
            read_split(source, dataset, "train"),
            test=read_split(source, dataset, split),
            dev=read_split(source, dataset, dev) if dev else None,
            seed=seed,
            source=split_location(source, dataset, split),
        )
    ]


def _snli(data, seed):
    return [
        NLIProbeTask(
            "snli",
            read_split(data, "snli", "train"),
            read_split(data, "snli", "test"),
            dev=read_split(data, "snli", "dev"),
            seed=seed,
            source=split_location(data, "snli", "test"),
        )
    ]


def _sts_dir(folder):
    return [
        STSTask(f"sts-dir/{name}", read_sts_file(path), source=path) for name, path in sts_folder_files(folder).items()
    ]


def _senteval_dir(folder, folds, seed):
    tasks = []
    for files in classification_folder_tasks(folder):
        name = f"senteval-dir/{files.name}"
        if files.single:
            tasks.append(
                ProbeTask(name, read_classification_file(files.single), folds=folds, seed=seed, source=files.single)
            )
        else:
            tasks.append(_split_probe(name, {"train": files.train, "dev": files.dev, "test": files.test}, seed))
    return tasks


def _hash_recall(data):
    source, sentences = data_source(data), []
    for split in ("dev", "test"):
        if source.tfds:
            sentences += split_sentences(source, "stsb", split)
        else:
            pairs = read_split(source, "stsb", split)
            sentences += pairs.sentences1 + pairs.sentences2
    return [HashRecallTask("hash-recall", sentences, source=os.path.dirname(split_location(source, "stsb", "dev")))]


def build_tasks(names, data=None, sts_dir=None, senteval_dir=None, folds=10, seed=0):
    """The tasks for `names` (see the module table), files read and checked now so that
    a bad file fails before any encoding starts. `data`: a data folder, `tfds` or `tfds:DIR`.

    (Not run as a doctest: it reads files of the benchmark data folder (docs/data.md).)
        tasks = build_tasks(["stsb", "sts-dir"], sts_dir="my_sts")
    """
    names = [TFDS_TASK_NAMES.get(n.strip(), n.strip()) for n in names if n.strip()]
    unknown = [n for n in names if n not in TASK_NAMES]
    if unknown:
        raise ValueError(f"unknown task(s) {unknown}; known: {', '.join(TASK_NAMES)}")
    if not names:
        raise ValueError(f"no task given; known: {', '.join(TASK_NAMES)}")
    if "sts-dir" in names and not sts_dir:
        raise ValueError("task sts-dir needs --sts-dir FOLDER (STS files: columns score, sentence1, sentence2)")
    if "senteval-dir" in names and not senteval_dir:
        raise ValueError("task senteval-dir needs --senteval-dir FOLDER (files label<TAB>sentence)")
    needs_data = [n for n in names if n not in ("sts-dir", "senteval-dir")]
    if needs_data and data is None:
        raise ValueError(
            f"task(s) {needs_data} read data: pass --data FOLDER (or data=) holding stsb/, mrpc/, "
            "sst2/, trec/, nli/ (see docs/data.md), or --data tfds[:DIR] for TensorFlow Datasets"
        )
    data = data_source(data) if needs_data else None
    builders = {
        "stsb": lambda: _stsb(data, "test"),
        "stsb-dev": lambda: _stsb(data, "dev"),
        "mrpc": lambda: _mrpc(data),
        "sst2": lambda: _sentence_probe(data, "sst2", seed),
        "trec": lambda: _sentence_probe(data, "trec", seed),
        "snli": lambda: _snli(data, seed),
        "sts-dir": lambda: _sts_dir(sts_dir),
        "senteval-dir": lambda: _senteval_dir(senteval_dir, folds, seed),
        "hash-recall": lambda: _hash_recall(data),
    }
    tasks = []
    for name in dict.fromkeys(names):
        tasks.extend(builders[name]())
    return tasks
