"""Reading STS-style TSV files (score, sentence1, sentence2) with validated rows."""

import csv
import dataclasses


@dataclasses.dataclass(frozen=True)
class ScoredPairs:
    """Sentence pairs with a gold similarity score each."""

    sentences1: list
    sentences2: list
    scores: list


def read_sts_tsv(path, score_range=(0.0, 5.0)):
    """Reads a TSV with a header naming `score`, `sentence1` and `sentence2` columns.

    The layout of `../shared/data/stsb/*.tsv` (tab-separated, no quoting). Every row must
    have as many fields as the header and a numeric score inside `score_range`.

    Raises:
        ValueError: `path:line: …` for a missing column, a short row, or a bad score.

    Example:
    >>> pairs = read_sts_tsv("../shared/data/stsb/test.tsv")   # doctest: +SKIP
    >>> len(pairs.scores)                                       # doctest: +SKIP
    1379
    """
    low, high = score_range
    with open(path, encoding="utf-8", newline="") as f:
        reader = csv.reader(f, delimiter="\t", quoting=csv.QUOTE_NONE)
        header = next(reader, None)
        if header is None:
            raise ValueError(f"{path}:1: empty file, expected a header line")
        missing = [c for c in ("score", "sentence1", "sentence2") if c not in header]
        if missing:
            raise ValueError(f"{path}:1: header {header} lacks column(s) {missing}")
        i_score, i_s1, i_s2 = (header.index(c) for c in ("score", "sentence1", "sentence2"))
        pairs = ScoredPairs([], [], [])
        for row in reader:
            line = reader.line_num
            if len(row) != len(header):
                raise ValueError(
                    f"{path}:{line}: expected {len(header)} tab-separated fields, got {len(row)}"
                )
            try:
                score = float(row[i_score])
            except ValueError:
                raise ValueError(f"{path}:{line}: score {row[i_score]!r} is not a number") from None
            if not low <= score <= high:
                raise ValueError(f"{path}:{line}: score {score} is outside [{low}, {high}]")
            pairs.sentences1.append(row[i_s1])
            pairs.sentences2.append(row[i_s2])
            pairs.scores.append(score)
    return pairs
