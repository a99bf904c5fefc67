"""Builds `bert_character_tables.json`: how Hugging Face's BERT normaliser and pre-tokeniser treat
each Unicode code point, read from the `tokenizers` library itself.

Why a table, not `\\p{...}` classes: a model's `tokenizer.json` runs in Hugging Face `tokenizers`
(Rust), whose BERT normaliser takes its character categories from the `unicode_categories` crate
(an old Unicode version: U+1734 is still a non-spacing mark there, U+2E55 no punctuation) and its
white space and lower-casing from the Rust standard library (a recent one). TF's RE2 and ICU
carry other Unicode versions again. Asking `tokenizers` what it does with every code point and
writing the answer down as explicit ranges makes the in-graph tokenizer give the model's own ids,
whatever Unicode version TensorFlow ships.

Rebuild after upgrading `tokenizers` (the tests compare the committed tables with a fresh build: a
sample in `make test`, every code point in `make test-slow`):

    python -m keras_sentemb.tokenizers.bert_character_table_builder \\
        > keras_sentemb/tokenizers/bert_character_tables.json

Each class is probed in a context that shows it alone (one normaliser step switched on at a time):
- deleted: `clean_text` turns "a<c>b" into "ab" (control, format, private-use characters, U+FFFD);
- white space: `clean_text` turns it into "a b";
- CJK: `handle_chinese_chars` turns it into "a <c> b";
- non-spacing mark: `strip_accents` deletes it (probed on characters that NFD leaves alone);
- punctuation: `BertPreTokenizer` splits "a<c>b" into "a", "<c>", "b";
- lower case: `lowercase` maps "<c>" to another string;
- kept whole by NFD: Hugging Face's NFD leaves the character alone where TF Text's (ICU, a newer
  Unicode) decomposes it (U+105C9, U+16121 …): the in-graph tokenizer shields these from NFD.
"""

import sys

import tensorflow as tf
import tensorflow_text as tf_text
import tokenizers
from tokenizers import normalizers, pre_tokenizers

from keras_sentemb.tokenizers.character_tables import render_character_tables

SURROGATES = range(0xD800, 0xE000)


def code_points():
    """Every Unicode scalar value (surrogates excluded: no valid text holds one)."""
    return [c for c in range(0x110000) if c not in SURROGATES]


def ranges(points):
    """Sorted code points as inclusive `(first, last)` runs.

    >>> ranges([1, 2, 3, 7, 9, 10])
    [(1, 3), (7, 7), (9, 10)]
    """
    runs = []
    for point in sorted(points):
        if runs and runs[-1][1] == point - 1:
            runs[-1] = (runs[-1][0], point)
        else:
            runs.append((point, point))
    return runs


def _normalizer(clean_text=False, handle_chinese_chars=False, strip_accents=False, lowercase=False):
    return normalizers.BertNormalizer(
        clean_text=clean_text,
        handle_chinese_chars=handle_chinese_chars,
        strip_accents=strip_accents,
        lowercase=lowercase,
    )


def probe_tables(points=None):
    """`{name: sorted code points}` for the classes above, and the lower-case map `{code point: str}`,
    over `points` (default: every code point)."""
    clean = _normalizer(clean_text=True)
    chinese = _normalizer(handle_chinese_chars=True)
    strip = _normalizer(strip_accents=True)
    lower = _normalizer(lowercase=True)
    nfd = normalizers.NFD()
    split = pre_tokenizers.BertPreTokenizer()
    tables = {"deleted": [], "whitespace": [], "cjk": [], "nonspacing_marks": [], "punctuation": []}
    lowercase = {}
    points = code_points() if points is None else sorted(points)
    for point in points:
        char = chr(point)
        probe = f"a{char}b"
        cleaned = clean.normalize_str(probe)
        if cleaned == "ab":
            tables["deleted"].append(point)
        elif cleaned == "a b" and char != " ":
            tables["whitespace"].append(point)
        if chinese.normalize_str(probe) == f"a {char} b":
            tables["cjk"].append(point)
        if nfd.normalize_str(char) == char and strip.normalize_str(probe) == "ab":
            tables["nonspacing_marks"].append(point)
        if [word for word, _ in split.pre_tokenize_str(probe)] == ["a", char, "b"]:
            tables["punctuation"].append(point)
        lowered = lower.normalize_str(char)
        if lowered != char:
            lowercase[point] = lowered
    tables["nfd_kept"] = nfd_kept(nfd, points)
    return tables, lowercase


def nfd_kept(nfd, points):
    """The `points` that `nfd` (Hugging Face's) leaves whole and TF Text's NFD decomposes."""
    kept = []
    for start in range(0, len(points), 65536):
        chunk = [chr(point) for point in points[start : start + 65536]]
        graph = tf_text.normalize_utf8(tf.constant(chunk), "NFD").numpy()
        for char, decomposed in zip(chunk, graph):
            reference = nfd.normalize_str(char)
            if decomposed.decode("utf-8") != reference:
                if reference != char:
                    raise ValueError(f"U+{ord(char):04X}: both NFDs decompose it, differently; extend the table")
                kept.append(ord(char))
    return kept


def render_tables(tables, lowercase):
    """The text of `bert_character_tables.json` (`character_tables.render_character_tables`)."""
    single = {point: lowered for point, lowered in lowercase.items() if len(lowered) == 1}
    return render_character_tables(
        tokenizers.__version__,
        {name: ranges(points) for name, points in tables.items()},
        mapping=[(point, ord(lowered)) for point, lowered in sorted(single.items())],
        expansions={point: lowered for point, lowered in lowercase.items() if len(lowered) != 1},
    )


if __name__ == "__main__":
    sys.stdout.write(render_tables(*probe_tables()))
