"""Typed training examples and their readers: pairs without scores, scored pairs, labelled
pairs, triplets, labelled sentences. Column names are explicit; every row is validated (`table_reader`)."""

import dataclasses
import math
import os

from keras_sentemb.data.table_reader import read_table

NLI_LABELS = ("entailment", "neutral", "contradiction")


@dataclasses.dataclass
class TextPairs:
    """Related text pairs without scores: (query, relevant document), (question, answer),
    (anchor, positive), the input of `MultipleNegativesRankingLoss` (the other pairs of a
    batch are the negatives)."""

    sentences1: list
    sentences2: list
    skipped: int = 0

    def __len__(self):
        return len(self.sentences1)


@dataclasses.dataclass
class ScoredPairs:
    """Sentence pairs with a gold similarity score each (STS)."""

    sentences1: list
    sentences2: list
    scores: list
    skipped: int = 0

    def __len__(self):
        return len(self.scores)


@dataclasses.dataclass
class LabeledPairs:
    """Sentence pairs with an integer class each (NLI, paraphrase); `label_names[i]` names class i."""

    sentences1: list
    sentences2: list
    labels: list
    label_names: tuple = ()
    skipped: int = 0

    def __len__(self):
        return len(self.labels)


@dataclasses.dataclass
class Triplets:
    """(anchor, positive, negative) sentence triplets."""

    anchors: list
    positives: list
    negatives: list
    skipped: int = 0

    def __len__(self):
        return len(self.anchors)


@dataclasses.dataclass
class LabeledSentences:
    """Single sentences with an integer class each (SST-2, TREC)."""

    sentences: list
    labels: list
    label_names: tuple = ()
    skipped: int = 0

    def __len__(self):
        return len(self.labels)


def sentence_value(value):
    """A non-empty sentence (surrounding whitespace stripped)."""
    if not isinstance(value, str):
        raise ValueError(f"expected text, got {type(value).__name__}")
    text = value.strip()
    if not text:
        raise ValueError("empty sentence")
    return text


def score_parser(low, high):
    """A converter to float that rejects non-numbers, NaN and values outside [low, high]."""

    def parse(value):
        if isinstance(value, bool):  # JSON true/false are not scores (float(True) == 1.0)
            raise ValueError(f"score {value!r} is a boolean, not a number")
        try:
            score = float(value)
        except (TypeError, ValueError):
            raise ValueError(f"score {value!r} is not a number") from None
        if math.isnan(score) or not low <= score <= high:
            raise ValueError(f"score {score} is outside [{low}, {high}]")
        return score

    return parse


def label_parser(label_names, num_classes=None):
    """A converter to a class index: by position in `label_names`, or else an integer in
    [0, num_classes) (any integer ≥ 0 when `num_classes` is None). Booleans are refused."""
    index = {name: i for i, name in enumerate(label_names or ())}

    def parse(value):
        if isinstance(value, bool):
            raise ValueError(f"label {value!r} is a boolean, not a class")
        text = str(value).strip()
        if index:
            if text not in index:
                raise ValueError(f"label {text!r} is not one of {tuple(index)}")
            return index[text]
        try:
            label = int(text)
        except ValueError:
            raise ValueError(f"label {text!r} is not an integer; pass label_names=") from None
        if label < 0:
            raise ValueError(f"label {label} is negative; classes are 0, 1, …")
        if num_classes is not None and label >= num_classes:
            raise ValueError(f"label {label} is outside [0, {num_classes})")
        return label

    return parse


def read_pairs(path, sentence1="sentence1", sentence2="sentence2", format=None, on_bad_lines="error"):
    """Reads text pairs without scores (`TextPairs`): two text columns, any others ignored.

    (Not run as a doctest: it reads a user's file.)
        pairs = read_pairs("train_pairs.tsv", "query", "document")
        train = examples_dataset(pairs, encoder.tokenizer, batch_size=32)
    """
    columns, report = read_table(
        path,
        {"sentences1": (sentence1, sentence_value), "sentences2": (sentence2, sentence_value)},
        format=format,
        on_bad_lines=on_bad_lines,
    )
    return TextPairs(**columns, skipped=report.skipped)


def read_scored_pairs(
    path,
    sentence1="sentence1",
    sentence2="sentence2",
    score="score",
    score_range=(0.0, 5.0),
    format=None,
    on_bad_lines="error",
):
    """Reads STS-style pairs: two sentence columns and a numeric score in `score_range`.

    (Not run as a doctest: it reads files of the benchmark data folder (docs/data.md).)
        pairs = read_scored_pairs("data/stsb/train.tsv")
    """
    if score is None:
        raise TypeError(
            f"read_scored_pairs({os.fspath(path)!r}, score=None): pairs without scores are read by "
            "read_pairs(path, sentence1, sentence2), which returns TextPairs"
        )
    columns, report = read_table(
        path,
        {
            "sentences1": (sentence1, sentence_value),
            "sentences2": (sentence2, sentence_value),
            "scores": (score, score_parser(*score_range)),
        },
        format=format,
        on_bad_lines=on_bad_lines,
    )
    return ScoredPairs(**columns, skipped=report.skipped)


def read_labeled_pairs(
    path,
    sentence1="sentence1",
    sentence2="sentence2",
    label="label",
    label_names=None,
    format=None,
    on_bad_lines="error",
    num_classes=None,
):
    """Reads pairs with a class label; `label_names` maps label strings to indices, else
    labels are integers in [0, num_classes).

    Example (not run as a doctest: it reads the benchmark data folder, docs/data.md)::

        nli = read_labeled_pairs("data/nli/snli_dev.tsv.gz", "premise", "hypothesis", label_names=NLI_LABELS)
    """
    columns, report = read_table(
        path,
        {
            "sentences1": (sentence1, sentence_value),
            "sentences2": (sentence2, sentence_value),
            "labels": (label, label_parser(label_names, num_classes)),
        },
        format=format,
        on_bad_lines=on_bad_lines,
    )
    return LabeledPairs(**columns, label_names=tuple(label_names or ()), skipped=report.skipped)


def read_triplets(path, anchor="anchor", positive="positive", negative="negative", format=None, on_bad_lines="error"):
    """Reads (anchor, positive, negative) sentence triplets."""
    columns, report = read_table(
        path,
        {
            "anchors": (anchor, sentence_value),
            "positives": (positive, sentence_value),
            "negatives": (negative, sentence_value),
        },
        format=format,
        on_bad_lines=on_bad_lines,
    )
    return Triplets(**columns, skipped=report.skipped)


def read_labeled_sentences(
    path, sentence="sentence", label="label", label_names=None, format=None, on_bad_lines="error", num_classes=None
):
    """Reads single sentences with a class label (SST-2: ints in [0, num_classes); TREC: pass label_names)."""
    columns, report = read_table(
        path,
        {"sentences": (sentence, sentence_value), "labels": (label, label_parser(label_names, num_classes))},
        format=format,
        on_bad_lines=on_bad_lines,
    )
    return LabeledSentences(**columns, label_names=tuple(label_names or ()), skipped=report.skipped)
