"""Bring-your-own benchmarks: folders of STS files and of SentEval-style classification files.

STS file (`*.tsv` / `*.txt`), one pair a line: `score<TAB>sentence1<TAB>sentence2`, any
numeric score scale. Classification file, one sentence a line: `label<TAB>sentence`, any
label strings. Header detection is explicit, never guessed from a failed number: a first
line that reads `score<TAB>sentence1<TAB>sentence2` (STS) or `label<TAB>sentence`
(classification), in any letter case, is the header; `header=True` skips any first line,
`header=False` reads every line as data. Blank lines are skipped. Any other malformed line — a wrong number of TAB fields, a score that is not a
finite number, an empty sentence — is a `ValueError` naming `file:line`.

A classification folder holds either one file per task (`mr.tsv`: probed by k-fold
cross-validation) or split files (`trec.train.tsv` + `trec.test.tsv`, optionally
`trec.dev.tsv`: a train/test probe).
"""

import dataclasses
import math
import os

from keras_sentemb.data.examples import LabeledSentences, ScoredPairs

SUFFIXES = (".tsv", ".txt")
SPLITS = ("train", "dev", "test")


def _lines(path):
    path = os.fspath(path)
    if not os.path.isfile(path):
        raise FileNotFoundError(f"{path}: no such file")
    with open(path, "rb") as f:
        raw = f.read()
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        line = raw[: error.start].count(b"\n") + 1
        raise ValueError(f"{path}:{line}: not valid UTF-8 ({error.reason})") from None
    # Only "\n" ends a line ("\r\n" too): `str.splitlines` would also break at U+2028,
    # U+2029, NEL and other separators that can sit inside a sentence, shifting line numbers.
    for number, line in enumerate(text.split("\n"), start=1):
        line = line.removesuffix("\r")
        if line.strip():
            yield number, line


def _fields(path, number, line, count, layout):
    fields = line.split("\t")
    if len(fields) != count:
        raise ValueError(f"{path}:{number}: expected {count} TAB-separated fields ({layout}), got {len(fields)}")
    return [field.strip() for field in fields]


def _is_header(fields, names, header):
    if header is None:
        return [field.lower() for field in fields] == list(names)
    return bool(header)


def _sentence(path, number, text, column):
    if not text:
        raise ValueError(f"{path}:{number}: {column} is empty")
    return text


def read_sts_file(path, header=None):
    """`ScoredPairs` from a `score<TAB>sentence1<TAB>sentence2` file (header line optional:
    see the module docstring for `header`).

    (Not run as a doctest: it reads files of the benchmark data folder (docs/data.md).)
        pairs = read_sts_file("my_sts/news.tsv")
        len(pairs), pairs.scores[:2]
        # -> (750, [4.2, 0.8])
    """
    first, second, scores = [], [], []
    layout = "score, sentence1, sentence2"
    for index, (number, line) in enumerate(_lines(path)):
        fields = _fields(path, number, line, 3, layout)
        if index == 0 and _is_header(fields, ("score", "sentence1", "sentence2"), header):
            continue
        score, sentence1, sentence2 = fields
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
    """`LabeledSentences` from a `label<TAB>sentence` file; `labels` are the label strings
    themselves (a probe takes any hashable labels), `label_names` their sorted set.

    (Not run as a doctest: it reads files of the benchmark data folder (docs/data.md).)
        data = read_classification_file("my_cls/trec.train.tsv")
        data.label_names
        # -> ('ABBR', 'DESC', 'ENTY', 'HUM', 'LOC', 'NUM')
    """
    sentences, labels = [], []
    for index, (number, line) in enumerate(_lines(path)):
        fields = _fields(path, number, line, 2, "label, sentence")
        if index == 0 and _is_header(fields, ("label", "sentence"), header):
            continue
        label, sentence = fields
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
    return {os.path.splitext(name)[0]: os.path.join(folder, name) for name in names}


def classification_folder_tasks(folder):
    """The classification tasks of `folder`, sorted by name: `x.tsv` is a cross-validated
    task, `x.train.tsv` + `x.test.tsv` (+ `x.dev.tsv`) a train/test task."""
    folder, names = _task_files(folder, "classification")
    tasks = {}
    for name in names:
        stem = os.path.splitext(name)[0]
        base, _, split = stem.rpartition(".")
        if base and split in SPLITS:
            task = tasks.setdefault(base, ClassificationTaskFiles(base))
            setattr(task, split, os.path.join(folder, name))
        else:
            tasks.setdefault(stem, ClassificationTaskFiles(stem)).single = os.path.join(folder, name)
    for task in tasks.values():
        if task.single and (task.train or task.test or task.dev):
            raise ValueError(f"{folder}: task {task.name!r} has both a single file and split files")
        if not task.single and not (task.train and task.test):
            missing = [s for s in ("train", "test") if not getattr(task, s)]
            raise ValueError(
                f"{folder}: task {task.name!r} lacks its {' and '.join(f'{task.name}.{s}.tsv' for s in missing)}"
            )
    return [tasks[name] for name in sorted(tasks)]
