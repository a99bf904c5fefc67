"""Bring-your-own benchmarks: folders of STS files and of SentEval-style classification files.

STS file, one pair a row: columns `score`, `sentence1`, `sentence2`, any numeric score scale.
Classification file, one sentence a row: columns `label`, `sentence`, any label strings.
`*.tsv` / `*.txt` files are TAB-separated, one row a line, no quoting; `*.csv` files are
comma-separated with CSV quoting (a quoted field may hold commas and line breaks).

Header detection is explicit, never guessed from a failed number: a first row whose fields are
exactly the column names (`score`, `sentence1`, `sentence2` or `label`, `sentence`), in any order
and letter case, is the header, and the columns are then read by name (so `sentence1,sentence2,score`
works); without one they are read in the order above. `header=True` skips any first row (using it
for the order when it names the columns), `header=False` reads every row as data. Blank lines are
skipped. Any other malformed row — a wrong number of fields, a score that is not a finite number,
an empty sentence — is a `ValueError` naming `file:line`.

A classification folder holds either one file per task (`mr.tsv`: probed by k-fold
cross-validation) or split files (`trec.train.tsv` + `trec.test.tsv`, optionally
`trec.dev.tsv`: a train/test probe).
"""

import csv
import dataclasses
import io
import math
import os

from keras_sentemb.data.examples import LabeledSentences, ScoredPairs

SUFFIXES = (".tsv", ".txt", ".csv")
SPLITS = ("train", "dev", "test")


def _text(path):
    path = os.fspath(path)
    if not os.path.isfile(path):
        raise FileNotFoundError(f"{path}: no such file")
    with open(path, "rb") as f:
        raw = f.read()
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        line = raw[: error.start].count(b"\n") + 1
        raise ValueError(f"{path}:{line}: not valid UTF-8 ({error.reason})") from None


def _raw_rows(path):
    """(line number, fields) of every non-blank row: CSV rows for `*.csv`, TAB-split lines otherwise."""
    text = _text(path)
    if os.fspath(path).endswith(".csv"):
        reader = csv.reader(io.StringIO(text, newline=""))
        start = 1
        try:
            for fields in reader:
                if any(field.strip() for field in fields):
                    yield start, fields
                start = reader.line_num + 1
        except csv.Error as error:
            raise ValueError(f"{path}:{reader.line_num}: not valid CSV ({error})") from None
        return
    # Only "\n" ends a line ("\r\n" too): `str.splitlines` would also break at U+2028,
    # U+2029, NEL and other separators that can sit inside a sentence, shifting line numbers.
    for number, line in enumerate(text.split("\n"), start=1):
        line = line.removesuffix("\r")
        if line.strip():
            yield number, line.split("\t")


def _rows(path, names, header):
    """(line number, fields in the order of `names`) of every data row (see the module docstring)."""
    separated = "comma-separated" if os.fspath(path).endswith(".csv") else "TAB-separated"
    order = list(range(len(names)))
    for index, (number, fields) in enumerate(_raw_rows(path)):
        if len(fields) != len(names):
            raise ValueError(
                f"{path}:{number}: expected {len(names)} {separated} fields ({', '.join(names)}), got {len(fields)}"
            )
        fields = [field.strip() for field in fields]
        if index == 0 and header is not False:
            named = [field.lower() for field in fields]
            if sorted(named) == sorted(names):
                order = [named.index(name) for name in names]
                continue
            if header:
                continue
        yield number, [fields[i] for i in order]


def _sentence(path, number, text, column):
    if not text:
        raise ValueError(f"{path}:{number}: {column} is empty")
    return text


def read_sts_file(path, header=None):
    """`ScoredPairs` from an STS file: TSV or CSV, columns `score`, `sentence1`, `sentence2`, with
    or without a header row naming them (see the module docstring for `header`).

    (Not run as a doctest: it reads files of the benchmark data folder (docs/data.md).)
        pairs = read_sts_file("my_sts/news.tsv")
        len(pairs), pairs.scores[:2]
        # -> (750, [4.2, 0.8])
    """
    first, second, scores = [], [], []
    for number, (score, sentence1, sentence2) in _rows(path, ("score", "sentence1", "sentence2"), header):
        try:
            value = float(score)
        except ValueError:
            raise ValueError(f"{path}:{number}: score {score!r} is not a number") from None
        if not math.isfinite(value):
            raise ValueError(f"{path}:{number}: score {score!r} is not a finite number")
        first.append(_sentence(path, number, sentence1, "sentence1"))
        second.append(_sentence(path, number, sentence2, "sentence2"))
        scores.append(value)
    if len(scores) < 2:
        raise ValueError(f"{path}: an STS file needs at least two scored pairs, got {len(scores)}")
    return ScoredPairs(first, second, scores)


def read_classification_file(path, header=None):
    """`LabeledSentences` from a classification file (TSV or CSV, columns `label`, `sentence`, header
    optional as for STS files); `labels` are the label strings
    themselves (a probe takes any hashable labels), `label_names` their sorted set.

    (Not run as a doctest: it reads files of the benchmark data folder (docs/data.md).)
        data = read_classification_file("my_cls/trec.train.tsv")
        data.label_names
        # -> ('ABBR', 'DESC', 'ENTY', 'HUM', 'LOC', 'NUM')
    """
    sentences, labels = [], []
    for number, (label, sentence) in _rows(path, ("label", "sentence"), header):
        if not label:
            raise ValueError(f"{path}:{number}: label is empty")
        sentences.append(_sentence(path, number, sentence, "sentence"))
        labels.append(label)
    if not sentences:
        raise ValueError(f"{path}: no labelled sentences")
    return LabeledSentences(sentences, labels, label_names=tuple(sorted(set(labels))))


@dataclasses.dataclass
class ClassificationTaskFiles:
    """The files of one classification task: `single` (cross-validated) or `train` +
    `test` (+ optional `dev`)."""

    name: str
    single: str | None = None
    train: str | None = None
    dev: str | None = None
    test: str | None = None


def _task_files(folder, kind):
    folder = os.fspath(folder)
    if not os.path.isdir(folder):
        raise FileNotFoundError(f"{folder}: no such {kind} folder")
    names = sorted(n for n in os.listdir(folder) if n.endswith(SUFFIXES) and os.path.isfile(os.path.join(folder, n)))
    if not names:
        raise ValueError(f"{folder}: no {'/'.join(SUFFIXES)} files in this {kind} folder")
    return folder, names


def sts_folder_files(folder):
    """`{task name: path}` of the STS files in `folder` (name = file name without suffix)."""
    folder, names = _task_files(folder, "STS")
    files = {}
    for name in names:
        task = os.path.splitext(name)[0]
        if task in files:
            raise ValueError(f"{folder}: two files for task {task!r}: {os.path.basename(files[task])} and {name}")
        files[task] = os.path.join(folder, name)
    return files


def classification_folder_tasks(folder):
    """The classification tasks of `folder`, sorted by name: `x.tsv` is a cross-validated
    task, `x.train.tsv` + `x.test.tsv` (+ `x.dev.tsv`) a train/test task."""
    folder, names = _task_files(folder, "classification")
    tasks = {}
    for name in names:
        stem = os.path.splitext(name)[0]
        base, _, split = stem.rpartition(".")
        if not (base and split in SPLITS):
            base, split = stem, "single"
        task = tasks.setdefault(base, ClassificationTaskFiles(base))
        if getattr(task, split):
            raise ValueError(
                f"{folder}: two files for {base!r} {split}: {os.path.basename(getattr(task, split))} and {name}"
            )
        setattr(task, split, os.path.join(folder, name))
    for task in tasks.values():
        if task.single and (task.train or task.test or task.dev):
            raise ValueError(f"{folder}: task {task.name!r} has both a single file and split files")
        if not task.single and not (task.train and task.test):
            missing = [s for s in ("train", "test") if not getattr(task, s)]
            raise ValueError(
                f"{folder}: task {task.name!r} lacks its {' and '.join(f'{task.name}.{s}.tsv' for s in missing)}"
            )
    return [tasks[name] for name in sorted(tasks)]
