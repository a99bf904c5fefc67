"""Task names understood by `keras-sentemb evaluate --tasks ...`, built from files.

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
"""

import os

from keras_sentemb.data.examples import NLI_LABELS, read_labeled_pairs, read_scored_pairs
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


def _data_file(data_dir, *parts):
    path = os.path.join(data_dir, *parts)
    if not os.path.isfile(path):
        raise FileNotFoundError(
            f"{path}: no such file (set --data to the folder holding stsb/, mrpc/, sst2/, trec/, nli/)"
        )
    return path


def _stsb(data_dir, split):
    path = _data_file(data_dir, "stsb", f"{split}.tsv")
    return [STSTask("stsb" if split == "test" else "stsb-dev", read_scored_pairs(path), source=path)]


def _mrpc(data_dir):
    train, test = _data_file(data_dir, "mrpc", "train.tsv"), _data_file(data_dir, "mrpc", "test.tsv")
    return [PairClassificationTask("mrpc", read_labeled_pairs(train), read_labeled_pairs(test), source=test)]


def _split_probe(name, files, seed):
    return ProbeTask(
        name,
        read_classification_file(files["train"]),
        test=read_classification_file(files["test"]),
        dev=read_classification_file(files["dev"]) if files.get("dev") else None,
        seed=seed,
        source=files["test"],
    )


def _snli(data_dir, seed):
    def read(name):
        return read_labeled_pairs(_data_file(data_dir, "nli", name), "premise", "hypothesis", label_names=NLI_LABELS)

    return [
        NLIProbeTask(
            "snli",
            read("snli_train_subset.tsv.gz"),
            read("snli_test.tsv.gz"),
            dev=read("snli_dev.tsv.gz"),
            seed=seed,
            source=os.path.join(data_dir, "nli", "snli_test.tsv.gz"),
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


def _hash_recall(data_dir):
    sentences = []
    for split in ("dev", "test"):
        pairs = read_scored_pairs(_data_file(data_dir, "stsb", f"{split}.tsv"))
        sentences += pairs.sentences1 + pairs.sentences2
    return [HashRecallTask("hash-recall", sentences, source=os.path.join(data_dir, "stsb"))]


def build_tasks(names, data_dir=None, sts_dir=None, senteval_dir=None, folds=10, seed=0):
    """The tasks for `names` (see the module table), files read and checked now so that
    a bad file fails before any encoding starts.

    (Skipped as a doctest: it reads files of the benchmark data folder (docs/data.md).)
    >>> tasks = build_tasks(["stsb", "sts-dir"], sts_dir="my_sts")   # doctest: +SKIP
    """
    names = [n.strip() for n in names if n.strip()]
    unknown = [n for n in names if n not in TASK_NAMES]
    if unknown:
        raise ValueError(f"unknown task(s) {unknown}; known: {', '.join(TASK_NAMES)}")
    if not names:
        raise ValueError(f"no task given; known: {', '.join(TASK_NAMES)}")
    if "sts-dir" in names and not sts_dir:
        raise ValueError("task sts-dir needs --sts-dir FOLDER (files score<TAB>s1<TAB>s2)")
    if "senteval-dir" in names and not senteval_dir:
        raise ValueError("task senteval-dir needs --senteval-dir FOLDER (files label<TAB>sentence)")
    needs_data = [n for n in names if n not in ("sts-dir", "senteval-dir")]
    if needs_data and data_dir is None:
        raise ValueError(
            f"task(s) {needs_data} read a data folder: pass --data FOLDER (or data_dir=) "
            "holding stsb/, mrpc/, sst2/, trec/, nli/ (see docs/evaluation.md)"
        )
    data_dir = os.fspath(data_dir) if data_dir is not None else ""
    builders = {
        "stsb": lambda: _stsb(data_dir, "test"),
        "stsb-dev": lambda: _stsb(data_dir, "dev"),
        "mrpc": lambda: _mrpc(data_dir),
        "sst2": lambda: [
            _split_probe("sst2", {s: _data_file(data_dir, "sst2", f"{s}.tsv") for s in ("train", "dev", "test")}, seed)
        ],
        "trec": lambda: [
            _split_probe("trec", {s: _data_file(data_dir, "trec", f"{s}.tsv") for s in ("train", "test")}, seed)
        ],
        "snli": lambda: _snli(data_dir, seed),
        "sts-dir": lambda: _sts_dir(sts_dir),
        "senteval-dir": lambda: _senteval_dir(senteval_dir, folds, seed),
        "hash-recall": lambda: _hash_recall(data_dir),
    }
    tasks = []
    for name in dict.fromkeys(names):
        tasks.extend(builders[name]())
    return tasks
